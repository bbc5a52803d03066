; The queries the Java extractor runs over each file's one tree (joined into one query,
; errdex.extract.queries). Each captures what it finds as @node.

;; query: call
; `Objects.requireNonNull(x, "..")`, `checkArgument(ok, "..%s..", x)`, `log.error(..)`
(method_invocation name: (identifier) arguments: (argument_list)) @node

;; query: created
; `new XException("..")`, thrown or not: where an exception is built.
(object_creation_expression type: [(type_identifier) (scoped_type_identifier) (generic_type)]) @node

;; query: exception_class
; `class XException extends RuntimeException { XException(..) { super("..") } }`
(class_declaration name: (identifier) @name superclass: (superclass)) @node

;; query: helper
; `private IllegalStateException syntaxError(String message) { throw new ..(message + ..) }`:
; a method that builds an exception from its argument; its calls are sites.
(method_declaration name: (identifier) @name body: (block)) @node

;; query: asserted
; `assert n > 0 : "n must be positive";`
(assert_statement) @node

;; query: tags
; Constructors are functions too (the grammar's tags query lists methods only).
(constructor_declaration name: (identifier) @name) @definition.function

;; query: writes
; An assignment to a field of the object (`this.closed = true`), read by the outline.
(assignment_expression left: (field_access object: (this) @object field: (identifier) @name)) @write
