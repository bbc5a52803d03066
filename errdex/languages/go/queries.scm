; The queries the Go extractor runs over each file's one tree (joined into one query,
; errdex.extract.queries). Each captures what it finds as @node.

;; query: call
(call_expression function: [(identifier) (selector_expression)]) @node

;; query: sentinel
; `var ErrX = errors.New("..")` at package level: the message is returned by name.
(source_file (var_declaration (var_spec name: (identifier) value: (expression_list (call_expression))) @node))

;; query: error_method
; `func (e *T) Error() string { .. }`: T is an error whose text this method returns.
(method_declaration name: (field_identifier) @name result: (type_identifier)) @node

;; query: composite
; `&T{..}` / `T{..}`: where an error type may be built.
(composite_literal type: [(type_identifier) (qualified_type)]) @node

;; query: returned
; a name returned as is (`return nil, ErrNotFound`): where a sentinel error leaves.
(return_statement (expression_list [(identifier) (selector_expression)] @node))

;; query: writes
; An assignment to a field of the receiver (`p.closed = true`), read by the outline.
(assignment_statement left: (expression_list (selector_expression operand: (identifier) @object field: (field_identifier) @name))) @write
