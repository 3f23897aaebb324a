"""Pure rewrites from non-hybridizable expressions to `F.*` operator calls.

Every function here takes libcst nodes and returns a replacement node, or None when no rewrite
with the same result exists. Nothing here knows about rules, diagnostics or files: the rules
decide *when* a rewrite applies (they know what is a tensor), these functions decide *how*.
"""
