# Layers of a chart found by what they draw, not by their place among the
# layers (which moves: the veil where a PD extrapolates, R/plot_support.R,
# is the first layer when there is one).

# The index of the n-th layer of plot p whose geom is of class `geom`
# ("GeomLine") and whose data has the column `column` (either may be NULL);
# an error when there is none.
layer_at <- function(p, geom = NULL, column = NULL, n = 1L) {
  hit <- vapply(p$layers, function(l) {
    (is.null(geom) || inherits(l$geom, geom)) && (is.null(column) || column %in% names(l$data))
  }, logical(1))
  if (sum(hit) < n) stop("no layer ", n, " of geom ", geom %||% "any", " with column ", column %||% "any")
  which(hit)[n]
}

# The data given to that layer.
layer_of <- function(p, geom = NULL, column = NULL, n = 1L) p$layers[[layer_at(p, geom, column, n)]]$data
