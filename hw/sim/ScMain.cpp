// steprdu and the tests have their own main(), so the main() in libsystemc never runs; libsystemc still
// refers to sc_main. Compiled into every executable that links steprdu_chip (an interface source), so the
// reference resolves whether or not the linker keeps libsystemc for other reasons.
extern "C" int sc_main(int, char**) {
    return 0;
}
