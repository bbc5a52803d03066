; The query the Python extractor runs over each file's one tree: every statement or call
; that can raise, and the classes that may build their own message.

;; query: sites
(raise_statement) @raise
(assert_statement) @assert
(call function: [(identifier) (attribute)]) @call
(class_definition) @class
