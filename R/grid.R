# Grids of profile points and Apley's interval edges.

# The kind of a column, as far as profiling goes.
column_kind <- function(x) {
  if (is.factor(x) || is.character(x) || is.logical(x)) return("categorical")
  if (is.numeric(x)) return("numeric")
  "unsupported"
}

# Grid of values at which a variable is profiled.
#
# Numeric: the sorted distinct values when there are at most `grid_points` of
# them; otherwise `grid_points` quantiles (type 7, duplicates dropped) or an
# evenly spaced sequence from the minimum to the maximum. Categorical: the
# levels that occur (factor level order; sorted values for character and
# logical columns), and NA last when `na_level` and a value is missing.
make_grid <- function(x, grid_points, splits_type, na_level = FALSE) {
  missing <- anyNA(x)
  if (missing) x <- x[!is.na(x)]
  if (column_kind(x) == "categorical") {
    lev <- if (is.factor(x)) levels(droplevels(x)) else sort(unique(x))
    if (na_level && missing) lev <- c(lev, NA)
    return(lev)
  }
  ux <- unique(as.double(x))
  if (length(ux) <= grid_points) return(sort(ux))
  switch(splits_type,
    quantiles = unique(stats::quantile(x, seq(0, 1, length.out = grid_points), names = FALSE)),
    uniform = seq(min(ux), max(ux), length.out = grid_points),
    # Evenly spaced positions among the sorted distinct values, both ends
    # included: position floor(i (m - 1) / (k - 1)), i = 0, ..., k - 1.
    distinct = {
      s <- sort(ux)
      s[floor(seq(0, grid_points - 1) * (length(s) - 1) / (grid_points - 1)) + 1]
    }
  )
}

#' Grid of values for a profile
#'
#' `profile_grid()` gives the grid that [model_profile()] uses for a
#' variable, so that a grid can be computed on one set of rows (e.g. the
#' training rows) and used, through `variable_splits`, for profiles averaged
#' over another (e.g. the test rows).
#'
#' A numeric variable with at most `grid_points` distinct values gets all of
#' them. Otherwise: `"quantiles"`, type-7 quantiles at
#' `seq(0, 1, length.out = grid_points)` (duplicates dropped); `"uniform"`,
#' an evenly spaced sequence from the minimum to the maximum; `"distinct"`,
#' `grid_points` of the sorted distinct values at evenly spaced positions
#' (position \eqn{\lfloor i (m - 1) / (k - 1) \rfloor}{floor(i (m - 1) / (k - 1))},
#' \eqn{i = 0, \ldots, k - 1}, of the \eqn{m} distinct values), so that
#' every grid point is a value that occurs. A categorical variable gets its
#' levels that occur (and `NA` last with `na_level = TRUE` when a value is
#' missing).
#'
#' @param x A vector: the values of one variable.
#' @param grid_points Maximum number of grid points.
#' @param type `"quantiles"`, `"uniform"` or `"distinct"`.
#' @param na_level For categorical `x`: add `NA` as a level?
#' @returns The grid: a sorted numeric vector, or the levels.
#' @examples
#' profile_grid(mtcars$hp, 5)
#' profile_grid(mtcars$hp, 5, type = "distinct")
#' profile_grid(factor(c("b", "a", NA)), na_level = TRUE)
#' @export
profile_grid <- function(x, grid_points = 101, type = c("quantiles", "uniform", "distinct"),
                         na_level = FALSE) {
  type <- match.arg(type)
  grid_points <- check_whole(grid_points, "grid_points", 2, rlang::caller_env())
  if (column_kind(x) == "unsupported") {
    cli::cli_abort("{.arg x} must be numeric, a factor, character or logical, not {.cls {class(x)}}.")
  }
  if (all(is.na(x))) cli::cli_abort("{.arg x} has only missing values.")
  make_grid(x, grid_points, type, na_level)
}

# Apley's edges, computed exactly as ALEPlot does (type-1 quantiles through
# stats::quantile, duplicates dropped); with case weights, weighted type-1
# quantiles.
al_edges <- function(x, K, w = NULL) {
  p <- seq(1 / K, 1, length.out = K)
  q <- if (is.null(w) || all(w == w[1L])) {
    as.numeric(stats::quantile(x, p, type = 1))
  } else {
    weighted_quantile1(x, w, p)
  }
  unique(c(min(x), q))
}

# Type-1 quantiles (the inverse of the empirical distribution function) with
# case weights: the smallest x whose cumulative weight reaches p times the
# total, so that integer weights give exactly stats::quantile(type = 1) of
# the data with each row repeated w times.
weighted_quantile1 <- function(x, w, p) {
  o <- order(x)
  x <- x[o]
  cw <- cumsum(w[o])
  target <- cw[length(cw)] * p
  x[pmin(findInterval(target, cw, left.open = TRUE) + 1L, length(x))]
}

# Values of a profiled column for the stacked rows: same storage as the
# column so that predict() sees the type it was trained on.
column_values <- function(col, values) {
  if (is.factor(col)) {
    codes <- match(as.character(values), levels(col))
    attributes(codes) <- attributes(col)[c("levels", "class")]
    return(codes)
  }
  if (is.character(col)) return(as.character(values))
  if (is.logical(col)) return(as.logical(values))
  if (is.integer(col) && all(values == round(values))) return(as.integer(values))
  as.double(values)
}

# Type-7 quantiles (stats::quantile's default) with case weights, defined on
# the data with each row repeated w times (the k-th smallest of them is the
# first x whose cumulative weight reaches k); equal weights give
# stats::quantile() itself.
weighted_quantile7 <- function(x, w, p) {
  if (all(w == w[1L])) return(stats::quantile(x, p, names = FALSE))
  o <- order(x)
  x <- x[o]
  cw <- cumsum(w[o])
  nth <- function(k) x[pmin(findInterval(k, cw, left.open = TRUE) + 1L, length(x))]
  index <- 1 + (cw[length(cw)] - 1) * p
  lo <- floor(index)
  h <- index - lo
  qs <- nth(lo)
  hi <- nth(ceiling(index))
  i <- which(index > lo & hi != qs)
  qs[i] <- (1 - h[i]) * qs[i] + h[i] * hi[i]
  qs
}

# The grid point whose cell holds each value: for a numeric grid, cells lie
# between the midpoints of neighbouring grid values, the outer ones as wide
# on the outside as on the inside (cell_edges()); for a categorical grid,
# the level itself (a missing value belongs to an NA level). NA when a value
# is in no cell.
cell_index <- function(x, grid) {
  if (!is.numeric(grid)) return(match(as.character(x), as.character(grid)))
  x <- as.double(x)
  o <- order(grid)
  e <- cell_edges(grid[o])
  k <- findInterval(x, c(e$lo[1L], e$hi), rightmost.closed = TRUE)
  k[k < 1L | k > length(grid)] <- NA
  o[k]
}

# Support of each grid point: the number of rows whose value lies in its
# cell (cell_index()).
grid_support <- function(x, grid) tabulate(cell_index(x, grid), length(grid))

# Cell edges halfway between sorted grid values, the outer cells as wide as
# their inner half.
cell_edges <- function(g) {
  g <- as.double(g)
  o <- order(g)
  s <- g[o]
  mids <- (s[-1] + s[-length(s)]) / 2
  lo <- c(s[1] - (if (length(s) > 1) mids[1] - s[1] else 0.5), mids)
  hi <- c(mids, s[length(s)] + (if (length(s) > 1) s[length(s)] - mids[length(mids)] else 0.5))
  list(lo = lo[order(o)], hi = hi[order(o)])
}
