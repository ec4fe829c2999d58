#pragma once
// The address mappings a DRAM tier can use (AddressMapping): fields from the least significant end, as
// Ramulator 2 names them, plus the permuted and hashed variants.
#include "util/Choice.h"

namespace steprdu::hw::mem {

enum class MappingScheme { RoBaRaCoCh, RoBaRaCoChPerm, RoBaRaCoChHash, ChRaBaRoCo, Mop4, Mop4Hash };
const ChoiceTable<MappingScheme>& choices(MappingScheme);

} // namespace steprdu::hw::mem
