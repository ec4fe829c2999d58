#include "step_ops/Expr.h"

#include <gtest/gtest.h>

using steprdu::step::Expr;

TEST(StepExpr, FoldsConstantsAndCollectsLikeTerms) {
    Expr x = Expr::sym("x");
    EXPECT_EQ((Expr(2) + Expr(3)).constValue(), 5);
    EXPECT_EQ((x + x).str(), "2*x");
    EXPECT_EQ((Expr(3) * (x + Expr(1)) - Expr(3) * x).constValue(), 3);
    EXPECT_TRUE((x * Expr::sym("y")).equals(Expr::sym("y") * x));
}

TEST(StepExpr, BindsSymbolsAndEvaluatesCeilDivAndStep) {
    Expr d = Expr::sym("D_0");
    Expr tiles = Expr::ceilDiv(d, 16);
    EXPECT_FALSE(tiles.eval().has_value());
    EXPECT_EQ(tiles.eval({{"D_0", 17}}), 2);
    EXPECT_EQ(tiles.eval({{"D_0", 0}}), 0);
    EXPECT_EQ(Expr::step(d).eval({{"D_0", 5}}), 1);
    EXPECT_EQ(Expr::step(d).eval({{"D_0", 0}}), 0);
    EXPECT_EQ((Expr::step(d) * tiles * Expr(224)).eval({{"D_0", 33}}), 3 * 224);
}

TEST(StepExpr, RoundTripsThroughJson) {
    Expr e = Expr::ceilDiv(Expr::sym("a") * Expr(3) + Expr(1), 4) + Expr::step(Expr::sym("b"));
    EXPECT_TRUE(Expr::fromJson(e.toJson()).equals(e));
}
