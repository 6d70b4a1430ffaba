# Grids of profile points and Apley's interval edges.

# The kind of a column, as far as profiling goes (Dates, date-times and time
# differences are numeric, profiled on their own scale).
column_kind <- function(x) {
  if (is.factor(x) || is.character(x) || is.logical(x)) return("categorical")
  if (is.numeric(x) || is_time_scale(x)) return("numeric")
  "unsupported"
}

# A Date, POSIXct or difftime vector (which is.numeric() does not count).
is_time_scale <- function(x) {
  inherits(x, c("Date", "POSIXct", "difftime")) && typeof(x) %in% c("double", "integer")
}

# Columns of whole numbers by nature, whose grids are whole numbers too.
whole_scale <- function(x) is.integer(x) || inherits(x, "Date")

# The scale of a grid or column, for telling whether profiles can share an
# `_x_` column: "numeric" (double and integer), "Date", "POSIXct",
# "difftime <units>" or "categorical".
x_scale <- function(x) {
  if (inherits(x, "Date")) return("Date")
  if (inherits(x, "POSIXct")) return("POSIXct")
  if (inherits(x, "difftime")) return(paste("difftime", units(x)))
  if (is.numeric(x)) "numeric" else "categorical"
}

# Must the profiles' `_x_` column be character? When a grid is categorical,
# or the grids (a list) have more than one scale (numbers and Dates, say).
mixed_scales <- function(grids) {
  s <- vapply(grids, x_scale, character(1))
  any(s == "categorical") || length(unique(s)) > 1L
}

# Can the values s be grid values of the numeric column col? Numbers (on its
# numeric scale), or values of its class (time differences in any units).
same_scale <- function(col, s) {
  is.numeric(s) || (inherits(col, "difftime") && inherits(s, "difftime")) ||
    (is_time_scale(s) && x_scale(s) == x_scale(col))
}

# Values as plain numbers on the numeric scale of column `col`: days for
# Dates, seconds for date-times, the column's units for time differences.
scale_numbers <- function(col, values) {
  if (inherits(col, "difftime") && inherits(values, "difftime")) {
    return(as.double(values, units = units(col)))
  }
  as.double(unclass(values))
}

# Grid of values at which a variable is profiled, from the values x of all
# rows with case weights w (NULL for none), as ?profile_grid describes.
make_grid <- function(x, grid_points, splits_type, na_level = FALSE, w = NULL) {
  if (!is.null(w) && !all(w > 0)) {
    x <- x[w > 0]
    w <- w[w > 0]
  }
  missing <- anyNA(x)
  if (missing) {
    ok <- !is.na(x)
    x <- x[ok]
    if (!is.null(w)) w <- w[ok]
  }
  if (column_kind(x) == "categorical") {
    lev <- if (is.factor(x)) levels(droplevels(x)) else sort(unique(x))
    if (na_level && missing) lev <- c(lev, NA)
    return(lev)
  }
  z <- scale_numbers(x, x)
  whole <- whole_scale(x)
  # (Found without a hash table of the column's length.)
  few <- distinct_upto(z, grid_points)
  if (!is.null(few)) return(column_values(x, few))
  p <- seq(0, 1, length.out = grid_points)
  g <- switch(splits_type,
    quantiles = unique(grid_quantiles(z, w, p, if (whole) 1L else 7L)),
    uniform = {
      s <- seq(min(z), max(z), length.out = grid_points)
      if (whole) unique(round(s)) else s
    },
    distinct = {
      s <- sort(unique(z))
      s[floor(seq(0, grid_points - 1) * (length(s) - 1) / (grid_points - 1)) + 1]
    }
  )
  column_values(x, g)
}

# Quantiles of type 7 or 1 of z, with case weights w (NULL for none) defined
# on the values repeated w times.
grid_quantiles <- function(z, w, p, type) {
  if (type == 1L) {
    if (is.null(w) || all_same(w)) return(column_quantiles(z, p, 1L))
    return(weighted_quantile1(z, w, p))
  }
  if (is.null(w)) return(column_quantiles(z, p, 7L))
  weighted_quantile7(z, w, p)
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
#' `seq(0, 1, length.out = grid_points)` (duplicates dropped), or type-1
#' quantiles (the inverse of the empirical distribution function: values
#' that occur) for integer and Date columns; `"uniform"`,
#' an evenly spaced sequence from the minimum to the maximum (rounded to
#' whole numbers, duplicates dropped, for integer and Date columns);
#' `"distinct"`,
#' `grid_points` of the sorted distinct values at evenly spaced positions
#' (position \eqn{\lfloor i (m - 1) / (k - 1) \rfloor}{floor(i (m - 1) / (k - 1))},
#' \eqn{i = 0, \ldots, k - 1}, of the \eqn{m} distinct values), so that
#' every grid point is a value that occurs. A categorical variable gets its
#' levels that occur (and `NA` last with `na_level = TRUE` when a value is
#' missing).
#'
#' The grid is on the scale of `x`: integer for an integer vector, and Dates,
#' date-times (`POSIXct`, with the time zone of `x`) or time differences
#' (`difftime`, in the units of `x`) for those, whose quantiles and even
#' sequences are taken on their numeric scale (days, seconds, the units).
#'
#' With `weights`, a value of weight w counts as w values (and one of
#' weight 0 as none): the distinct values, the range and the quantiles are
#' those of the values repeated w times for integer weights, the quantiles
#' weighted quantiles of the same types otherwise. This is the grid that
#' [model_profile()] uses with case weights.
#'
#' @param x A vector: the values of one variable.
#' @param grid_points Maximum number of grid points.
#' @param variable_splits_type `"quantiles"`, `"uniform"` or `"distinct"`
#'   (the argument of [model_profile()] of the same name).
#' @param na_level For categorical `x`: add `NA` as a level?
#' @param weights `NULL`, or one non-negative case weight per value of `x`.
#' @param type Deprecated: the old name of `variable_splits_type` (a
#'   warning).
#' @returns The grid: a sorted vector on the scale of `x`, or the levels.
#' @examples
#' profile_grid(mtcars$hp, 5)
#' profile_grid(mtcars$hp, 5, variable_splits_type = "distinct")
#' profile_grid(factor(c("b", "a", NA)), na_level = TRUE)
#' profile_grid(as.Date("2024-01-01") + 0:99, 5)
#' profile_grid(c(1, 2, 3, 10), 3, weights = c(1, 1, 1, 3))
#' @export
profile_grid <- function(x, grid_points = 101,
                         variable_splits_type = c("quantiles", "uniform", "distinct"),
                         na_level = FALSE, weights = NULL, type = NULL) {
  if (!is.null(type)) {
    variable_splits_type <- deprecated_arg("type", "variable_splits_type", type,
                                           !missing(variable_splits_type), rlang::current_env())
  }
  variable_splits_type <- arg_one(variable_splits_type, c("quantiles", "uniform", "distinct"), "variable_splits_type",
                                  rlang::current_env())
  grid_points <- check_whole(grid_points, "grid_points", 2, rlang::current_env())
  check_flag(na_level, "na_level", rlang::current_env())
  if (column_kind(x) == "unsupported") {
    cli::cli_abort("{.arg x} must be numeric, a Date, date-time or time difference, a factor, character or logical, not {.cls {class(x)}}.")
  }
  if (!is.null(weights)) {
    if (!is.numeric(weights) || length(weights) != length(x) || anyNA(weights) ||
        any(!is.finite(weights)) || any(weights < 0)) {
      cli::cli_abort("{.arg weights} must be {length(x)} finite, non-negative number{?s}, one per value of {.arg x}.")
    }
    weights <- as.double(weights)
  }
  if (all(is.na(x[if (is.null(weights)) TRUE else weights > 0]))) {
    cli::cli_abort("{.arg x} has only missing values.")
  }
  make_grid(x, grid_points, variable_splits_type, na_level, weights)
}

# Apley's edges, computed exactly as ALEPlot does (type-1 quantiles through
# stats::quantile, duplicates dropped); with case weights, weighted type-1
# quantiles.
al_edges <- function(x, K, w = NULL) {
  unique(c(min(x), grid_quantiles(x, w, seq(1 / K, 1, length.out = K), 1L)))
}

# Type-1 quantiles (the inverse of the empirical distribution function) with
# case weights: the smallest x whose cumulative weight reaches p times the
# total, so that integer weights give exactly stats::quantile(type = 1) of
# the data with each row repeated w times.
weighted_quantile1 <- function(x, w, p) column_quantiles(as.double(x), p, 1L, w)

# Values of a profiled column for the stacked rows, of the column's storage
# and class so that predict() sees the type it was trained on. `values`:
# levels or values of a categorical column, or numbers on the column's
# numeric scale (or values of its class).
column_values <- function(col, values) {
  if (is.factor(col)) {
    codes <- match(as.character(values), levels(col))
    attributes(codes) <- attributes(col)[c("levels", "class")]
    return(codes)
  }
  if (is.character(col)) return(as.character(values))
  if (is.logical(col)) return(as.logical(values))
  out <- scale_numbers(col, values)
  if (is.integer(col) && all(out == round(out), na.rm = TRUE)) out <- as.integer(out)
  if (is_time_scale(col)) {
    keep <- attributes(col)[c("class", "tzone", "units")]
    attributes(out) <- keep[!vapply(keep, is.null, logical(1))]
  }
  out
}

# Type-7 quantiles with case weights, defined on the data with each row
# repeated w times (the k-th smallest is the first x whose cumulative weight
# reaches k); weights of 1 give stats::quantile() itself (equal weights
# other than 1 do not).
weighted_quantile7 <- function(x, w, p, col = 1L) {
  w <- as.double(w)
  column_quantiles(x, p, 7L, if (!(all_same(w) && (!length(w) || w[1L] == 1))) w, col)
}

# Silverman's rule of thumb, stats::bw.nrd0(), of the values x (on their
# numeric scale; missing values left out) with case weights w (NULL for
# none): for the sample with each value repeated w times, i.e. the weighted
# standard deviation (divisor sum(w) - 1), the weighted type-7 interquartile
# range and n = sum(w). Integer weights give bw.nrd0() of the repeated
# values; weights of 1 (or none) give bw.nrd0(x) itself.
# Values whose squares leave the range of doubles (largest |x| outside
# [2^-64, 2^64]) are first scaled exactly by a power of two into [1, 2).
weighted_bw_nrd0 <- function(x, w = NULL) {
  x <- scale_numbers(x, x)
  # (No copy of a column without missing values, unweighted.)
  if (anyNA(x) || !is.null(w)) {
    ok <- !is.na(x)
    if (!is.null(w)) ok <- ok & w > 0
    x <- x[ok]
    w <- if (!is.null(w)) w[ok]
  }
  m <- if (length(x)) max(-min(x), max(x)) else 0
  if (is.finite(m) && m > 0 && (m < 2^-64 || m > 2^64)) {
    e <- -floor(log2(m))
    h <- trunc(e / 2)
    return(bw_nrd0_of(x * 2^h * 2^(e - h), w) / 2^h / 2^(e - h))
  }
  bw_nrd0_of(x, w)
}

bw_nrd0_of <- function(x, w) {
  if (is.null(w) || all(w == 1)) return(stats::bw.nrd0(x))
  n <- sum(w)
  if (n < 2) stop("need at least 2 data points")
  m <- sum(w * x) / n
  m <- m + sum(w * (x - m)) / n
  hi <- sqrt(sum(w * (x - m)^2) / (n - 1))
  q <- weighted_quantile7(x, w, c(0.25, 0.75))
  if (!(lo <- min(hi, (q[2L] - q[1L]) / 1.34))) (lo <- hi) || (lo <- abs(x[1L])) || (lo <- 1)
  0.9 * lo * n^(-0.2)
}

# The grid point whose cell holds each value (NA in none): for a numeric
# grid, cells between the midpoints of neighbouring grid values
# (cell_edges()); for a categorical grid, the level itself (NA for NA).
cell_index <- function(x, grid) {
  if (column_kind(grid) != "numeric") return(match(as.character(x), as.character(grid)))
  x <- scale_numbers(grid, x)
  o <- order(grid)
  e <- cell_edges(grid[o])
  k <- findInterval(x, c(e$lo[1L], e$hi), rightmost.closed = TRUE)
  k[k < 1L | k > length(grid)] <- NA
  o[k]
}

# Support of each grid point: the number of rows whose value lies in its
# cell (cell_index()), or with case weights w the sum of their weights.
grid_support <- function(x, grid, w = NULL) {
  if (column_kind(grid) == "numeric") {
    # (Counted without an index vector of the column's length.)
    o <- order(grid)
    e <- cell_edges(grid[o])
    counts <- interval_tally(scale_numbers(grid, x), c(e$lo[1L], e$hi), w)
    return((if (is.null(w)) as.integer(counts) else counts)[order(o)])
  }
  k <- cell_index(x, grid)
  if (is.null(w)) return(tabulate(k, length(grid)))
  weighted_counts(k, w, length(grid))
}

# Sums of the weights w per index 1..n (indices NA or outside left out).
weighted_counts <- function(index, w, n) {
  ok <- !is.na(index) & index >= 1L & index <= n
  out <- as.vector(tapply(w[ok], factor(index[ok], levels = seq_len(n)), sum))
  out[is.na(out)] <- 0
  out
}

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
