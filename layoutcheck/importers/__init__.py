"""Importers: layouts read where users already have them -- Triton TTGIR (``triton``) and CuTe printouts, C++ and
DSL (``cute``). They build algebra values (``LinearLayout``, ``Layout``, ``ComposedLayout``) and never import the
tools they read (Triton and the CuTe DSL are test-only oracles)."""
