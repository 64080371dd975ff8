// Integer expressions of the spec language: size expressions (extents, flops, bytes) and the affine indices of
// view accesses. Indices are parsed as sums and products of dimension names, size symbols and integer
// literals, then linearised into AffineIndex: coefficients and offset become SizeExprs over the sizes.
#pragma once

#include <string>
#include <vector>

#include "mdh/ir.h"
#include "mdh/lexer.h"

namespace mdh {

/// int_expr ::= int_term {('+' | '-') int_term}   over integer literals and size names, e.g. `I+4`, `2*I*J*K`.
SizeExpr parse_size_expression(Lexer& lex, const std::string& what);

/// index ::= summand {('+' | '-') summand};  summand ::= int_term ['..' int_term]
/// Names in `dims` are the view's dimensions (by position); every other name is a size symbol.
/// Throws UserError for a non-affine index and for a misplaced window.
AffineIndex parse_affine_index(Lexer& lex, const std::vector<std::string>& dims);

}  // namespace mdh
