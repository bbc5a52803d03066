; The queries the Python extractor runs over each file's one tree (joined into one query,
; errdex.extract.queries): every statement or call that can raise, and the classes that
; may build their own message. Each captures what it finds as @node.

;; query: class
(class_definition) @node

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

;; query: exports
; A module's `__all__ = [...]` (and `__all__ += [...]`): the names it exports, read by the
; outline; a definition of the module outside it is not public.
(module (expression_statement (assignment left: (identifier) @name right: [(list) (tuple)] @exports) (#eq? @name "__all__")))
(module (expression_statement (augmented_assignment left: (identifier) @name right: [(list) (tuple)] @exports) (#eq? @name "__all__")))
