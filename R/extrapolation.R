#' Where a partial-dependence profile extrapolates
#'
#' A partial-dependence (PD) profile at grid value z averages the
#' predictions at the background rows with the profiled variable set to z.
#' When the variables are correlated, many of these evaluation points are
#' combinations that never occur in the data (a 20-year-old with 30 years
#' of work experience): the model is extrapolated there, and the PD
#' averages those predictions as if they were real. The column
#' `_extrapolation_` of a PD profile's `agr_profiles` (one- and
#' two-variable) is, per grid point, the share of its evaluation points (by
#' case weight) that lie outside the data. With kept ICE curves, the column
#' `_extrapolation_` of `cp_profiles` is each point's verdict (1 outside,
#' 0 inside; the share is its weighted mean over the curves).
#'
#' @section The measure:
#' * **The space.** The model's variables (the columns of the data it uses,
#'   when its family tells them, see [model_adapter()]; all columns of the
#'   data otherwise, but for a column of case weights): numeric ones (numbers, dates, times) divided by their
#'   weighted standard deviation over the background rows; categorical ones
#'   (factors, character, logical) compared by mismatch. The squared
#'   distance of two rows sums the squared differences of the numeric
#'   variables and 1 per categorical variable whose values differ (a
#'   mismatch counts as much as a difference of one standard deviation); a
#'   missing value against an observed one counts as a mismatch, two
#'   missing values as equal.
#' * **The reference.** Each background row's distance to its nearest
#'   other background row. Its weighted quantile `q` (0.95 by default) is
#'   the threshold.
#' * **Outside.** An evaluation point (row i with the variable set to z) is
#'   outside when its distance to the nearest background row other than row
#'   i itself exceeds the threshold. Leaving row i out makes an evaluation
#'   point comparable with a data row: where the profiled variable is
#'   independent of the others, an evaluation point is distributed as a data
#'   row, so the share is near the tail probability `1 - q` (more at the
#'   ends of the grid, where the data are sparse); where it is tied to the
#'   others, the share is the (weighted) share of rows whose values make z
#'   impossible, near 1 at the ends of the grid.
#' * **Relative to the background rows.** The threshold is the typical
#'   distance between neighbouring background rows, so the measure resolves
#'   the data's support as finely as the background rows sample it: with
#'   more rows (a larger `N`) the threshold shrinks, and where the support
#'   is thin (strongly correlated variables) the share can grow. Compare
#'   shares of profiles computed with the same `N`.
#' * **Case weights** weigh the rows in the quantile and in the shares; a
#'   row's weight does not put copies of it in its own neighbourhood (so
#'   integer weights are not the same as duplicated rows here, unlike for
#'   the profiles themselves).
#' * **Large data.** At most 1,000 background rows (evenly spaced among
#'   them) are the reference. Up to 10,000 background rows, every row's
#'   points are evaluated. Above that, the points of a random subsample of
#'   10,000 background rows are (drawn with a fixed seed: the same rows
#'   whatever the session's seed, so the result is reproducible; the scales
#'   and the reference are still those of all rows; the rows drawn depend
#'   on the rows' order). The share is a
#'   weighted mean over rows, so the subsample's share estimates the share
#'   of all rows, with a binomial standard error of at most
#'   \eqn{0.5 / \sqrt{10000} = 0.005}{0.5 / sqrt(10000) = 0.005};
#'   `print()` says so, the field `extrapolation` gives `rows` (evaluated)
#'   and `of` (background rows), and in kept ICE curves the points of the
#'   other rows have `_extrapolation_` `NA`.
#'
#' The measure makes no prediction. An evaluation point differs from its
#' own row in one coordinate only, so its squared distance to row k is
#' \eqn{D_{-j}(i, k) + (z - x_{kj})^2}{D_-j(i, k) + (z - x_kj)^2}: a
#' row k within the threshold at some z is within it on an interval of z
#' around \eqn{x_{kj}}{x_kj}, and a grid value is inside when one of these
#' intervals (of the few rows within the threshold in the other variables)
#' holds it. This is exact (the same verdicts as computing every distance)
#' and costs O(n m p) for n rows, m reference rows and p variables, instead
#' of n x G nearest-neighbour searches. The distances take four reference
#' rows at a time (AVX) or two (SSE2) where the processor has them, with
#' the same sums, to the last bit, as one at a time; the option
#' `modelprofiles.support_lanes` (1, 2 or 4) caps the width, for tests.
#'
#' `options(modelprofiles.extrapolation = FALSE)` turns the measure off
#' for [model_profile()], [model_profile_2d()] and [compare_profiles()]
#' (it then costs nothing); a number between 0 and 1, such as
#' `options(modelprofiles.extrapolation = 0.99)`, sets `q`.
#' Profiles of other types (LD, AL) evaluate the model at the data's own
#' rows and intervals and have no such column.
#'
#' @section Shown:
#' `plot()` draws a translucent veil behind the parts of a PD curve where the
#' share exceeds 0.5 (denser: more of the points
#' averaged there are outside the data), with a legend saying so (also on
#' the chart of a single profile), when the share exceeds 0.5 somewhere
#' (`extrapolation = FALSE` in `plot()` leaves it out). The chart of a
#' two-variable PD greys the cells where the share exceeds 0.5, with a
#' legend (`extrapolation = FALSE` leaves it out). `print()` and
#' `summary()` name the range of the grid where the share exceeds 0.5, and
#' [compare_profiles()] says where the PD differs from another profile
#' within it.
#'
#' @references
#' Hooker, G. (2004). Discovering additive structure in black box
#' functions. *Proceedings of the 10th ACM SIGKDD*, 575--580.
#' \doi{10.1145/1014052.1014122}
#'
#' @examples
#' set.seed(1)
#' x1 <- runif(300)
#' d <- data.frame(x1 = x1, x2 = x1 + rnorm(300, sd = 0.05), x3 = runif(300))
#' fit <- lm(x3 ~ x1 + x2, data = d)
#' pd <- model_profile(fit, d[c("x1", "x2")], grid_points = 11)
#' pd$agr_profiles[c("_vname_", "_x_", "_extrapolation_")]
#' @name extrapolation
NULL

# The setting of option `modelprofiles.extrapolation`: NULL (off) or
# list(q).
extrapolation_setting <- function(call) {
  extrapolation <- getOption("modelprofiles.extrapolation", TRUE)
  if (isFALSE(extrapolation)) return(NULL)
  if (isTRUE(extrapolation)) return(list(q = extrapolation_quantile))
  if (is.numeric(extrapolation) && length(extrapolation) == 1L && !is.na(extrapolation) &&
      extrapolation > 0 && extrapolation < 1) {
    return(list(q = as.double(extrapolation)))
  }
  cli::cli_abort(c(
    "Option {.code modelprofiles.extrapolation} must be {.code TRUE}, {.code FALSE} or a quantile between 0 and 1, not {.obj_type_friendly {extrapolation}}.",
    i = "See {.topic modelprofiles::extrapolation}."
  ), call = call)
}

# The columns of the space: the model's variables in the data (when its
# family tells them and the predict function is its own), with the
# profiled ones; all columns otherwise; never `exclude` (the case
# weights' column).
support_columns <- function(setup, variables, exclude = NULL) {
  cols <- setdiff(names(setup$data), setdiff(exclude, variables))
  used <- used_columns(setup)
  if (!is.null(used)) cols <- cols[cols %in% c(used, variables)]
  cols[vapply(setup$data[cols], column_kind, character(1)) != "unsupported"]
}

# Category codes (0-based) of x among `levels` (a missing value is a level
# of its own).
support_keys <- function(x) {
  k <- as.character(x)
  k[is.na(k)] <- "\r<NA>"
  k
}

# The space of a call's background rows and its threshold (setting q):
# list(num, fac (over the space's rows), mismatch, columns (per name:
# numeric, col, scale or levels), ref (1-based among the space's rows), t2
# (the threshold, squared), q, n (background rows), rows and sub (NULL, or
# above extrapolation_max_rows background rows: the space's rows, the
# reference and the subsample sub, the rows whose points are evaluated)).
# The scales and the reference are those of all rows either way.
support_space <- function(setup, variables, q, exclude = NULL) {
  cols <- support_columns(setup, variables, exclude)
  n <- setup$n
  ref <- if (n <= extrapolation_max_reference) seq_len(n) else
    unique(round(seq(1, n, length.out = extrapolation_max_reference)))
  if (length(ref) < 2L) return(NULL)
  # (A seeded subsample: the same rows whatever the session's seed.)
  sub <- if (n > extrapolation_max_rows) with_seed(extrapolation_seed, sort(sample.int(n, extrapolation_max_rows)))
  rows <- if (!is.null(sub)) sort(union(ref, sub))
  w <- setup$weights
  num <- list()
  fac <- list()
  map <- list()
  for (v in cols) {
    x <- setup$data[[v]]
    if (column_kind(x) == "numeric") {
      sd <- support_scale(x, w)
      num[[length(num) + 1L]] <- scale_numbers(x, if (is.null(rows)) x else x[rows]) / sd
      map[[v]] <- list(numeric = TRUE, col = length(num), scale = sd)
    } else {
      keys <- support_keys(if (is.null(rows)) x else x[rows])
      levels <- unique(keys)
      fac[[length(fac) + 1L]] <- match(keys, levels) - 1L
      map[[v]] <- list(numeric = FALSE, col = length(fac), levels = levels)
    }
  }
  m <- if (is.null(rows)) n else length(rows)
  space <- list(
    num = matrix(as.double(unlist(num)), m, length(num)),
    fac = matrix(as.integer(unlist(fac)), m, length(fac)),
    mismatch = extrapolation_mismatch, columns = map, q = q, n = n, rows = rows, sub = sub,
    ref = if (is.null(rows)) ref else match(ref, rows)
  )
  r2 <- support_reference_distances(space, space$ref, setup$threads)
  space$t2 <- weighted_quantile7(matrix(r2), at_rows(w, ref), q)
  space
}

# The weighted standard deviation (divisor the sum of weights) of numeric
# column x (double or integer, as every numeric kind is) over its observed
# values, 1 when it is not positive; in C++ (weighted_sd(), R/cpp.R), no
# vector of a long column's length made.
support_scale <- function(x, w) {
  sd <- weighted_sd(x, w)
  if (!is.finite(sd) || !(sd > 0)) 1 else sd
}

# The axis of variable v over grid values `grid`.
support_axis <- function(space, setup, v, grid) {
  a <- space$columns[[v]]
  if (a$numeric) {
    return(list(numeric = TRUE, col = a$col, z = scale_numbers(setup$data[[v]], grid) / a$scale, zc = integer()))
  }
  keys <- support_keys(grid)
  codes <- match(keys, a$levels) - 1L
  new <- is.na(codes)
  codes[new] <- length(a$levels) + match(keys[new], unique(keys[new])) - 1L
  list(numeric = FALSE, col = a$col, z = double(), zc = codes)
}

# The shares of the evaluation points of rows `rows` (1-based among the
# background rows) outside the support at each grid point, for the
# one-variable profiles of variables `v` over `grids` (a list, one per
# variable): a list per variable of list(share, outside (G x rows raw 0/1,
# with keep)); with `pair`, of the two-variable profile of v (the first
# varying fastest). NULL without a space.
extrapolation_share <- function(space, setup, v, grids, rows, keep = FALSE, pair = FALSE) {
  if (is.null(space) || !length(v)) return(NULL)
  axes <- lapply(seq_along(v), function(k) support_axis(space, setup, v[k], grids[[k]]))
  # With a subsample: its rows among `rows` (at positions `pos`), at their
  # positions among the space's rows (`eval`).
  pos <- NULL
  eval <- rows
  if (!is.null(space$sub)) {
    pos <- if (length(rows) == space$n) space$sub else which(!is.na(match(rows, space$sub)))
    eval <- match(rows[pos], space$rows)
  }
  w <- at_rows(setup$weights, if (is.null(pos)) rows else rows[pos])
  out <- support_outside(space, axes, eval, w, keep, setup$threads, pair)
  if (keep && !is.null(pos)) {
    # Points of rows left out of the subsample: 2 (NA in cp_profiles).
    out <- lapply(out, function(o) {
      full <- matrix(as.raw(2L), nrow(o$outside), length(rows))
      full[, pos] <- o$outside
      o$outside <- full
      o
    })
  }
  if (pair) out[[1L]] else stats::setNames(out, v)
}

# The space of a profile call of `type` (NULL when the option turns the
# measure off, or for profiles other than PD), without the case weights'
# column of `inputs`.
profile_space <- function(setup, inputs, type, variables) {
  if (type != "partial") return(NULL)
  setting <- extrapolation_setting(setup$error_call)
  if (is.null(setting)) return(NULL)
  support_space(setup, variables, setting$q, attr(inputs$weights, "column"))
}

# What a result reports of the measure: list(q, level, threshold (the
# distance), reference (rows), variables (the space's)); NULL when off.
extrapolation_info <- function(space) {
  if (is.null(space)) return(NULL)
  list(q = space$q, level = extrapolation_level, threshold = sqrt(space$t2),
       reference = length(space$ref), variables = names(space$columns),
       rows = if (is.null(space$sub)) space$n else length(space$sub), of = space$n)
}

# Of profile rows `a` (agr_profiles of one variable and label, in grid
# order) over grid values `grid` (their own scale; `_x_` may be character
# when scales are mixed), the grid values or ranges where the share
# exceeds `level`: a string ("" when nowhere; NA without the measure).
extrapolation_range <- function(a, grid = a$`_x_`, level = extrapolation_level) {
  s <- a$`_extrapolation_`
  if (is.null(s)) return(NA_character_)
  over <- !is.na(s) & s > level
  if (!any(over)) return("")
  if (length(grid) != length(s)) grid <- a$`_x_`
  if (column_kind(grid) != "numeric") return(paste(unique(as.character(grid[over])), collapse = ", "))
  # Runs of consecutive grid points.
  o <- order(grid)
  r <- rle(over[o])
  ends <- cumsum(r$lengths)
  starts <- ends - r$lengths + 1L
  xs <- grid[o]
  paste(vapply(which(r$values), function(k) {
    lo <- format(xs[starts[k]], digits = 4)
    if (starts[k] == ends[k]) lo else paste0(lo, " to ", format(xs[ends[k]], digits = 4))
  }, character(1)), collapse = ", ")
}

# Per variable and label of a result, where the share exceeds the level: a
# data frame (variable, label, range, max), only where it does.
extrapolation_table <- function(x, level = extrapolation_level) {
  a <- x$agr_profiles
  if (is.null(a$`_extrapolation_`)) return(NULL)
  key <- unique(a[c("_vname_", "_label_")])
  rows <- lapply(seq_len(nrow(key)), function(k) {
    d <- a[a$`_vname_` == key$`_vname_`[k] & a$`_label_` == key$`_label_`[k], ]
    data.frame(variable = key$`_vname_`[k], label = key$`_label_`[k],
               range = extrapolation_range(d, x$grids[[key$`_vname_`[k]]], level),
               max = suppressWarnings(max(d$`_extrapolation_`, na.rm = TRUE)), stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  if (is.null(out)) return(NULL)
  out[out$range != "", , drop = FALSE]
}

# print()'s lines of the measure.
print_extrapolation <- function(x) {
  info <- x$extrapolation
  if (is.null(info) || is.null(x$agr_profiles$`_extrapolation_`)) return(invisible())
  tab <- extrapolation_table(x, info$level)
  if (!is.null(info$rows) && info$rows < info$of) {
    big <- function(k) format(k, big.mark = ",", scientific = FALSE)
    cli::cat_line("  extrapolation estimated on a random subsample of ", big(info$rows), " of the ", big(info$of),
                  " background rows (standard error at most ", format(0.5 / sqrt(info$rows), digits = 2), ")")
  }
  if (is.null(tab) || !nrow(tab)) {
    cli::cat_line("  extrapolation: no grid point has more than ", format(100 * info$level),
                  "% of its points outside the data")
    return(invisible())
  }
  one_label <- length(unique(tab$label)) == 1L
  cli::cat_line("  extrapolation (over ", format(100 * info$level), "% of the points averaged outside the data, see ?extrapolation):")
  for (k in seq_len(nrow(tab))) {
    cli::cat_line("    ", tab$variable[k], if (!one_label) paste0(" (", tab$label[k], ")"), ": ", tab$range[k])
  }
  invisible()
}
