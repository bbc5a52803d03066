; The queries the C extractor runs over each file's one tree (joined into one query,
; errdex.extract.queries). Each captures what it finds as @node.

;; query: call
; `PyErr_SetString(PyExc_ValueError, "..")`, `fprintf(stderr, ..)`, `assert(n > 0)`: every
; call by name (macros read as calls); the rules of rules.toml say which are errors.
(call_expression function: (identifier) arguments: (argument_list)) @node
