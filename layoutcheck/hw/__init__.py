"""Hardware facts as data: every table entry names its source (PTX ISA section, CUDA driver API, CUTLASS file).

Algorithms elsewhere in layoutcheck contain no hardware constants; they read them from here.
"""
