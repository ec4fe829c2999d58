// steprdu and the tests have their own main(), so the main() in libsystemc never runs; libsystemc still
// refers to sc_main. Compiled into every executable that links steprdu_chip (an interface source), so the
// reference resolves whether or not the linker keeps libsystemc for other reasons. Visible by default: the
// Python module is built with hidden symbols, and libsystemc looks sc_main up when Python loads it.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) {
    return 0;
}
