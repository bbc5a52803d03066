; The queries the C++ extractor (languages/c's, over tree-sitter-cpp) runs over each
; file's one tree. Each captures what it finds as @node.

;; query: call
; `TORCH_CHECK(n > 0, "..", n)`, `CHECK(x) << ".."`, `PyErr_Format(..)`, `std::abort()`
(call_expression function: [(identifier) (qualified_identifier)] arguments: (argument_list)) @node

;; query: thrown
; `throw std::runtime_error("..")`, `throw ShapeError(2, n)`, `throw new X(..)`
(throw_statement) @node

;; query: exception_class
; `class ShapeError : public std::runtime_error { ShapeError(int n) : std::runtime_error(..) {} };`
([(class_specifier name: (type_identifier) @name (base_class_clause))
  (struct_specifier name: (type_identifier) @name (base_class_clause))]) @node

;; query: constructor
; `ShapeError::ShapeError(int want) : std::runtime_error("want " + ..) {}`, defined out of
; its class (in the `.cpp` beside the header that declares it)
(function_definition declarator: (function_declarator declarator: (qualified_identifier))
  (field_initializer_list)) @node
