int sl_probe(void) { return 42; }
