; The queries the Python extractor runs over each file's one tree (joined into one query,
; errdex.extract.queries): every statement or call that can raise, and the classes that
; may build their own message. Each captures what it finds as @node.

;; query: class
(class_definition) @node

;; query: factory
; A function that builds an exception and hands it back (`def _invalid(self, msg) ->
; InvalidMetadata`, `return TOMLDecodeError(..)` last): `raise self._invalid(..)` raises
; that type.
[(function_definition return_type: (type))
 (function_definition body: (block (return_statement (call function: (identifier))) .))] @node

;; query: raise
(raise_statement) @node

;; query: assert
(assert_statement) @node

;; query: call
(call function: [(identifier) (attribute)]) @node

;; query: writes
; An assignment to a field of the receiver (`self._eof = True`), read by the outline
; (errdex.extract.outline): which method sets the state a check reads.
(assignment left: (attribute object: (identifier) @object attribute: (identifier) @name)) @write
(augmented_assignment left: (attribute object: (identifier) @object attribute: (identifier) @name)) @write

;; query: imports
; The names a `from M import a, b as c` binds (`a`, `c`), read by the outline: what a
; package's `__init__.py` re-exports from its private modules.
(import_from_statement name: (dotted_name . (identifier) @name .) @imported)
(import_from_statement name: (aliased_import alias: (identifier) @name) @imported)

;; query: exports
; A module's `__all__ = [...]`, and what it adds anywhere after (`__all__ += [...]`,
; `__all__.append("X")`, `__all__.extend([...])`, often under a `try:` that imports an
; optional module): the names it exports, read by the outline; a definition of the
; module outside them is not public.
(module (expression_statement (assignment left: (identifier) @name right: [(list) (tuple)] @exports) (#eq? @name "__all__")))
(expression_statement (augmented_assignment left: (identifier) @name right: [(list) (tuple)] @exports) (#eq? @name "__all__"))
(call function: (attribute object: (identifier) @name attribute: (identifier) @method) arguments: (argument_list) @exports (#eq? @name "__all__") (#eq? @method "append"))
(call function: (attribute object: (identifier) @name attribute: (identifier) @method) arguments: (argument_list [(list) (tuple)] @exports) (#eq? @name "__all__") (#eq? @method "extend"))
