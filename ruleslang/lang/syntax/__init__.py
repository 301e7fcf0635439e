"""Source text to AST and back: the lark parser, the tree-to-AST transform (`transform*`; with the parser, the only modules that import lark), the AST nodes and the unparser."""
