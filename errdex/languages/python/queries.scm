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
