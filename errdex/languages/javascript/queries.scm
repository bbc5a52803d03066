; The queries the JavaScript (and TypeScript) extractor runs over each file's one tree
; (joined into one query, errdex.extract.queries). Each captures what it finds as @node.
; Written with node types both grammars share, so TypeScript compiles the same text.

;; query: throw
; `throw new X(..)`, `throw "text"`: what leaves the function here.
(throw_statement) @node

;; query: new
; `new Error("..")`, `new errors.ShapeError(a, b)`: an error built (thrown, rejected,
; returned or passed on).
(new_expression constructor: [(identifier) (member_expression)]) @node

;; query: call
(call_expression function: [(identifier) (member_expression)]) @node

;; query: error_class
; `class XError extends Error { constructor(..) { super(`..`) } }`: a class whose
; constructor builds its message.
[(class_declaration (class_heritage)) (class (class_heritage))] @node
