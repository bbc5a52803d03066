; The queries the Rust extractor runs over each file's one tree. `{names}` is replaced by
; the quoted names of the rules of that form, `{regex}` by a regex over call names.

;; query: attr
((attribute_item (attribute (identifier) @name)) @node (#any-of? @name "cfg" "test"))

;; query: macro
((macro_invocation macro: [(identifier) @name (scoped_identifier name: (identifier) @name)]) @node (#any-of? @name {names}))

;; query: token
((token_tree (identifier) @name . (token_tree) @node) (#any-of? @name {names}))

;; query: method
((call_expression function: (field_expression field: (field_identifier) @name) arguments: (arguments)) @node (#any-of? @name {names}))

;; query: call
((call_expression function: (identifier) @name) @node (#any-of? @name {names}))

;; query: scoped
((call_expression function: (scoped_identifier name: (identifier) @name)) @node (#match? @name "{regex}"))

;; query: struct
(struct_expression name: (_) @name) @node

;; query: unit
((scoped_identifier path: (_) name: (identifier) @name) @node (#match? @name "^[A-Z]"))

;; query: enum
(enum_item name: (_) @name) @node

;; query: item
(struct_item name: (_) @name) @node

;; query: display
(impl_item trait: (_) @name body: (declaration_list)) @node

;; query: constructor
((call_expression function: (scoped_identifier path: (_) name: (identifier) @name) arguments: (arguments)) @node (#match? @name "^[a-z]"))

;; query: converted
(try_expression (call_expression function: [(scoped_identifier) (generic_function)] @name) @node)

;; query: macro_body
(macro_invocation macro: (_) @name (token_tree) @node)

;; query: constant
[(const_item name: (identifier) @name value: (_) @node) (static_item name: (identifier) @name value: (_) @node)]

;; query: tags
; What the grammar's tags query (TAGS_QUERY, errdex.extract.outline) leaves out: calls
; `Type::name(..)` and `name::<T>(..)`, calls written inside a macro's arguments (a token
; tree: `name` then a parenthesized tree), trait or extern declarations without a body,
; and struct literals.
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: [(identifier) @name (scoped_identifier name: (identifier) @name) (field_expression field: (field_identifier) @name)])) @reference.call
(token_tree (identifier) @name @reference.call . (token_tree))
(function_signature_item name: (identifier) @name) @definition.method
; A struct literal builds a value of its type: the callers of that type's trait methods.
(struct_expression name: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)]) @reference.call

;; query: writes
; An assignment to a field of `self` (`self.closed = true`), read by the outline.
(assignment_expression left: (field_expression value: (self) field: (field_identifier) @name)) @write
(compound_assignment_expr left: (field_expression value: (self) field: (field_identifier) @name)) @write
