# Regions of the background where a variable's effect differs: the splits
# of the rows, on other variables, that most reduce the heterogeneity of its
# ICE curves (regional effects, as effector's RegionalPDP and REPID find
# them), from the curves alone (no predictions beyond the ICE curves').

#' Find the regions where a variable's effect differs
#'
#' A partial-dependence profile is the average of the ICE curves, and the
#' average hides curves of different shapes: `y = x1 * sign(x2)` has a flat
#' PD in `x1`, with slopes +1 where `x2 > 0` and -1 where `x2 < 0`.
#' `find_regions()` finds such regions without being told where to look:
#' for each variable, it splits the background rows on the other variables,
#' as a regression tree does, so that the centred ICE curves within each
#' region are as alike as possible, and draws each region's profile with
#' its band.
#'
#' Each ICE curve is centred on its own mean over the grid, so that only its
#' shape counts. The heterogeneity of a set of rows is the weighted sum of
#' squared differences between their centred curves and the set's mean
#' centred curve (summed over the grid points). A split of a region, at a
#' value of a numeric variable (between two consecutive observed values) or
#' between levels of a categorical one (its levels ordered by their mean
#' curves' projection on the direction in which they differ most), is kept
#' when it removes at least `min_explained` of the region's heterogeneity
#' and leaves `min_size` of the rows on each side; each region is split
#' again, up to `depth` levels. Nothing is split when the curves hardly
#' differ at all: when their heterogeneity is below `min_heterogeneity` of
#' their total variation around the PD's mean (an additive model's centred
#' curves are all the same, and its heterogeneity 0). The best split of a
#' variable is found exactly, from running sums over the rows sorted by it
#' (C++), for all cut points at once.
#'
#' The bands are pointwise sampling bands of each region's PD, from the
#' spread of its ICE curves (as `bands = "analytic"` of [model_profile()]),
#' given the regions (the search that found them is not accounted for).
#'
#' @inheritParams model_profile
#' @param ... DALEX's `grid_points` and `variable_splits_type` (the fields
#'   `points` and `type` of `grid`).
#' @param variables The variables whose profiles are split (by default every
#'   variable the model uses).
#' @param split_variables The variables the rows may be split on (by default
#'   all columns of `data` but the profiled one).
#' @param depth Levels of splits at most (1: two regions; 2: up to four).
#' @param min_explained Share of a region's heterogeneity a split must
#'   remove to be kept.
#' @param min_size Share of the background rows (by weight) each side of a
#'   split keeps at least.
#' @param min_heterogeneity Below this share of the curves' total variation,
#'   a variable's curves are taken to have one shape, and it is not split.
#' @param grid The grid of each profile: a number of grid points (51 by
#'   default), or a [profile_grids()] setting of `points` and `type`
#'   (`"quantiles"`, `"uniform"` or `"distinct"`; see [profile_grid()]).
#' @param level Level of the regions' bands.
#' @returns An object of class `mp_regions`: a list with `agr_profiles` (a
#'   data frame with DALEX's columns `_vname_`, `_label_` (the region's
#'   description), `_x_`, `_yhat_`, and `_lower_`, `_upper_`, `_region_`,
#'   `_n_`), `splits` (one row per split kept: variable profiled, region
#'   split, split variable, threshold or levels, rows on each side, share of
#'   the region's heterogeneity removed), `regions` (one row per final
#'   region: description, rows, weight, heterogeneity), `summary` (per
#'   variable: heterogeneity, its share of the total variation, and the
#'   share explained by the regions), `membership` (one row per
#'   background row and variable profiled: `variable`, `_ids_` (the row's
#'   number in `data`), `_region_` (the region's number, as in
#'   `agr_profiles`) and `region` (its description)), and the settings.
#'   `print()`, `autoplot()`, `plot()` and `as.data.frame()` methods: `plot()` draws one
#'   panel per variable, its regions' profiles numbered at their right
#'   ends and described, with their rows, in the panel's strip; by
#'   default the variables with regions (at most four, those whose regions
#'   explain most), the caption naming the others (draw any with
#'   `plot(x, variables = )`). A chart has one kind of x axis: the numeric
#'   variables, as lines with bands; categorical ones are drawn on their
#'   own (`variables =`), each level a point with its band, not joined.
#' @seealso [hidden_interactions()] for given subgroups, [h_statistic()].
#' @export
#' @examples
#' set.seed(1)
#' d <- data.frame(x1 = runif(400, -1, 1), x2 = runif(400, -1, 1), x3 = runif(400))
#' d$y <- d$x1 * sign(d$x2) + d$x3
#' fit <- lm(y ~ x1:sign(x2) + x3, data = d)
#' r <- find_regions(fit, d[1:3], variables = "x1", grid = 11)
#' r
#' plot(r)
find_regions <- function(x, data = NULL, predict_function = NULL, variables = NULL,
                         split_variables = NULL, depth = 2, min_explained = 0.1, min_size = 0.1,
                         min_heterogeneity = 0.01, N = 1000, grid = profile_grids(), level = 0.95,
                         label = NULL, seed = NULL, weights = NULL, class = NULL, threads = NULL,
                         memory_budget = getOption("modelprofiles.memory_budget", 256),
                         engine = c("auto", "native", "predict"), ...) {
  call <- match.call()
  env <- environment()
  door <- front_door(list(...), "find_regions", env)
  gs <- grid_settings(grid, door$grid, list(points = 51L, type = "quantiles"), env)
  if (gs$type == "splits") {
    cli::cli_abort("{.arg grid}: {.fn find_regions} takes {.val quantiles}, {.val uniform} or {.val distinct} grids, not {.val splits}.", call = env)
  }
  depth <- check_whole(depth, "depth", 1, env)
  shares <- list(min_explained = min_explained, min_size = min_size, min_heterogeneity = min_heterogeneity)
  for (a in names(shares)) {
    check_number(shares[[a]], function(x) x >= 0 && x < 1,
                 paste0("{.arg ", a, "} must be one number in [0, 1), not {.val {format_value(x)}}."), env)
  }
  if (min_size > 0.5) {
    cli::cli_abort(c(
      "{.arg min_size} must be at most 0.5, not {.val {min_size}}: each side of a split keeps at least {.arg min_size} of the rows, so no split could.",
      i = "E.g. {.code min_size = 0.1} (the default) keeps splits with at least 10% of the rows on each side."
    ), call = env)
  }
  level <- band_values("analytic", level, NULL, env)$level
  start <- start_call("find_regions", env, list(), x, data, predict_function, label, weights, threads,
                      memory_budget, seed, engine)
  on.exit(start$restore_seed(), add = TRUE)
  inputs <- start$inputs
  N <- check_N(N, env)
  variables <- profile_variables(inputs, variables, "partial", NULL, NULL, env)
  splitters <- if (is.null(split_variables)) names(inputs$data) else
    check_variables(split_variables, inputs$data, env, arg = "split_variables")
  alone <- variables[vapply(variables, function(v) !length(setdiff(splitters, v)), logical(1))]
  if (length(alone)) {
    cli::cli_abort(c(
      "{.arg split_variables} must name a variable other than the profiled {.field {alone}}: its curves are split on the other variables.",
      i = "Add other columns to {.arg split_variables}, or leave it {.code NULL} (every other column)."
    ), call = env)
  }
  setup <- new_setup(inputs, setup_rows(inputs, N, seed), class, start$engine, linear = TRUE)
  if (setup$n_outputs != 1L) {
    cli::cli_abort(c("{.fn find_regions} splits the curves of one output; the model has {setup$n_outputs} classes.",
                     i = "Choose one with {.arg class}, e.g. {.code class = {.val {setup$outputs$classes[1L]}}}."),
                   call = env)
  }
  grids <- lapply(stats::setNames(variables, variables), function(v) {
    make_grid(inputs$data[[v]], gs$points, gs$type, FALSE, inputs$weights)
  })
  js <- match(variables, names(setup$data))
  reqs <- Map(function(j, g) partial_request(setup, j, g, seq_len(setup$n), keep_ice = TRUE), js, grids)
  res <- execute(setup, unname(reqs), new_progress(length(variables)))
  w <- setup$weights
  found <- lapply(seq_along(variables), function(i) {
    Y <- ice_table(res[[i]]$ice, length(grids[[i]]))
    region_tree(setup, variables[i], Y, w, setdiff(splitters, variables[i]), depth, min_explained,
                min_size * sum(w), min_heterogeneity)
  })
  agr <- bind_rows(Map(region_profiles, variables, grids, found, MoreArgs = list(w = w, level = level)))
  new_mp_regions(list(
    agr_profiles = agr,
    splits = bind_rows(lapply(found, `[[`, "splits")),
    regions = bind_rows(lapply(found, `[[`, "regions")),
    summary = bind_rows(lapply(found, `[[`, "summary")),
    membership = region_membership(variables, found, setup$rows),
    variables = variables, grids = grids, label = setup$label, class = setup$outputs$classes,
    level = level, depth = depth, N = setup$n, n_predictions = sum(attr(res, "n_predictions")),
    engine = setup$engine, call = call
  ))
}

# The ICE curves of a PD estimate as a G x n matrix (from the table, or the
# linear engine's compact curves).
ice_table <- function(ice, G) {
  if (inherits(ice, "mp_affine")) return(matrix(affine_values(ice), G))
  matrix(ice[, , 1L], G)
}

# The regions of variable v's curves Y (G x n, weights w): list(splits,
# regions, summary, members (the rows of each final region), labels).
region_tree <- function(setup, v, Y, w, splitters, depth, min_explained, min_w, min_heterogeneity) {
  G <- nrow(Y)
  centred <- Y - rep(colMeans(Y), each = G)
  total <- sum(w * colSums((Y - sum(Y %*% w) / (G * sum(w)))^2))
  h0 <- region_heterogeneity(centred, w, seq_len(ncol(Y)))
  share <- if (total > 0) h0 / total else 0
  nodes <- list(list(rows = seq_len(ncol(Y)), label = "all rows", depth = 0L, h = h0))
  final <- list()
  splits <- list()
  while (length(nodes)) {
    node <- nodes[[1L]]
    nodes <- nodes[-1L]
    # A region is split while its heterogeneity is a share of the curves'
    # total variation worth reporting (not rounding noise).
    best <- if (node$depth < depth && share >= min_heterogeneity && node$h >= min_heterogeneity * total) {
      best_region_split(setup, centred, w, node$rows, splitters, min_w)
    }
    if (is.null(best) || (node$h - best$within) < min_explained * node$h) {
      final[[length(final) + 1L]] <- node
      next
    }
    splits[[length(splits) + 1L]] <- data.frame(
      variable = v, region = node$label, split_variable = best$variable, rule = best$rule[1L],
      n_left = length(best$left), n_right = length(best$right),
      explained = (node$h - best$within) / node$h, stringsAsFactors = FALSE
    )
    for (side in 1:2) {
      part <- if (side == 1L) best$left else best$right
      lab <- if (node$depth == 0L) best$rule[side] else paste(node$label, "&", best$rule[side])
      nodes[[length(nodes) + 1L]] <- list(rows = part, label = lab, depth = node$depth + 1L,
                                          h = region_heterogeneity(centred, w, part))
    }
  }
  h <- vapply(final, `[[`, numeric(1), "h")
  labels <- vapply(final, `[[`, character(1), "label")
  members <- lapply(final, `[[`, "rows")
  list(
    members = members, labels = labels, Y = Y, splits = if (length(splits)) do.call(rbind, splits),
    regions = data.frame(variable = v, region = labels, n = lengths(members),
                         weight = vapply(members, function(r) sum(w[r]), numeric(1)), heterogeneity = h,
                         stringsAsFactors = FALSE),
    summary = data.frame(variable = v, heterogeneity = h0, share_of_variation = share,
                         explained = if (h0 > 0) 1 - sum(h) / h0 else 0, regions = length(final),
                         stringsAsFactors = FALSE)
  )
}

# The heterogeneity of rows `rows` of the centred curves: Q - |C|^2 / W
# (regions.h).
region_heterogeneity <- function(centred, w, rows) {
  C <- centred[, rows, drop = FALSE]
  k <- w[rows]
  max(0, sum(k * colSums(C^2)) - sum((C %*% k)^2) / sum(k))
}

# The best split of `rows` on any of `splitters`: list(variable, rule (the
# two sides' descriptions), left, right, within), or NULL.
best_region_split <- function(setup, centred, w, rows, splitters, min_w) {
  best <- NULL
  for (s in splitters) {
    x <- setup$data[[s]][rows]
    keyed <- split_key(x, centred[, rows, drop = FALSE], w[rows])
    if (is.null(keyed)) next
    key <- rep(Inf, ncol(centred))
    key[rows] <- keyed$key
    ord <- rows[order(keyed$key)]
    r <- best_split(centred, w, ord, key, min_w)
    if (r$k < 1L || (!is.null(best) && r$within >= best$within)) next
    k <- r$k
    left <- ord[seq_len(k)]
    right <- ord[-seq_len(k)]
    rule <- if (is.null(keyed$levels)) {
      cut_txt <- split_value_text(setup$data[[s]], key[ord[k]], key[ord[k + 1L]])
      c(paste(s, "<=", cut_txt), paste(s, ">", cut_txt))
    } else {
      lv <- keyed$levels
      inside <- lv[seq_len(ceiling(key[ord[k]]))]
      c(paste0(s, " in {", paste(inside, collapse = ", "), "}"),
        paste0(s, " in {", paste(setdiff(lv, inside), collapse = ", "), "}"))
    }
    best <- list(variable = s, rule = rule, left = left, right = right, within = r$within)
  }
  best
}

# The threshold of a split between the values `lo` and `hi` (lo < hi, on
# the sort key's scale) of column `col`, as text: the midpoint to the fewest
# significant digits (3 at least) at which it still lies in [lo, hi), so
# that the printed rule puts every row on its side; for dates and
# date-times, `lo` as a date (the rule `<= lo` is exact).
split_value_text <- function(col, lo, hi) {
  if (inherits(col, c("Date", "POSIXct"))) {
    return(format(structure(lo, class = class(col), tzone = attr(col, "tzone"))))
  }
  cut <- (lo + hi) / 2
  for (digits in 3:15) {
    v <- signif(cut, digits)
    if (v >= lo && v < hi) break
  }
  format(v, digits = digits)
}

# The sort key of a split variable's values x (of the curves' rows):
# numbers as they are (missing values last); a categorical variable's
# levels ranked by the projection of their mean centred curves on the
# direction in which the level means differ most (the leading eigenvector
# of their weighted covariance), with `levels` in that order. NULL when x
# takes one value.
split_key <- function(x, centred, w) {
  if (column_kind(x) == "numeric") {
    z <- scale_numbers(x, x)
    if (length(unique(z[!is.na(z)])) < 2L) return(NULL)
    z[is.na(z)] <- Inf
    return(list(key = z))
  }
  f <- factor(ifelse(is.na(x), "(missing)", as.character(x)))
  lv <- levels(f)
  if (length(lv) < 2L) return(NULL)
  Wl <- as.vector(rowsum(w, f, reorder = TRUE))
  M <- t(rowsum(t(centred) * w, f, reorder = TRUE)) / rep(Wl, each = nrow(centred))
  mbar <- as.vector(M %*% Wl) / sum(Wl)
  D <- (M - mbar) * rep(sqrt(Wl), each = nrow(M))
  dir <- svd(D, nu = 1L, nv = 0L)$u[, 1L]
  proj <- as.vector(crossprod(dir, M))
  ordered <- lv[order(proj)]
  list(key = as.double(match(as.character(f), ordered)), levels = ordered)
}

# The profiles of the regions of variable v over `grid`, with their bands
# at `level`.
region_profiles <- function(v, grid, found, w, level) {
  Y <- found$Y
  bind_rows(Map(function(rows, lab, r) {
    k <- w[rows]
    m <- as.vector(Y[, rows, drop = FALSE] %*% k) / sum(k)
    lim <- band_limits(m, level, se = table_se(Y[, rows, drop = FALSE], k, m))
    data.frame(`_vname_` = v, `_label_` = lab, `_x_` = grid, `_yhat_` = m,
               `_lower_` = lim$lower, `_upper_` = lim$upper, `_region_` = r,
               `_n_` = length(rows), check.names = FALSE, stringsAsFactors = FALSE)
  }, found$members, found$labels, seq_along(found$members)))
}
