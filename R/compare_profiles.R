# PD vs LD vs AL: the diagnostic of section 18.5 of Explanatory Model
# Analysis, as numbers.

#' Compare partial-dependence, local-dependence and accumulated-local profiles
#'
#' For an additive model and independent variables, the three profiles of a
#' variable differ only by a constant. Section 18.5 of *Explanatory Model
#' Analysis* reads their differences as a diagnostic: an LD profile that
#' departs from the AL profile carries the effects of variables correlated
#' with this one; a PD profile that departs from the AL profile averages
#' predictions over combinations of values that do not occur together, which
#' matters when the variable interacts with correlated ones.
#' `compare_profiles()` computes the three profiles and measures how far
#' apart they are, so that the variables to look at come first.
#'
#' The distance between two profiles of a variable is the root-mean-square
#' difference of the profiles at the background rows' own values of the
#' variable, after each profile is centred on its mean over those rows:
#' \deqn{d(g, h) = \sqrt{\frac{\sum_i w_i \{(g(x_i) - \bar g) - (h(x_i) - \bar h)\}^2}{\sum_i w_i}}}{d(g, h) = sqrt(weighted mean over rows i of ((g(x_i) - mean g) - (h(x_i) - mean h))^2)}
#' Profiles are interpolated linearly between grid points (numeric
#' variables) or read at the row's level (categorical). Evaluating at the
#' rows' own values weighs each part of a profile by how much data lies
#' there, so that differences where the model extrapolates do not dominate.
#' The distances are on the scale of the predictions; `al_range` (the range
#' of the AL profile) puts them in proportion.
#'
#' `pd_al_extrapolated` says how much of the PD-AL distance comes from
#' where the PD extrapolates: the share of the squared distance (the sum
#' over rows above) contributed by rows whose value lies where more than
#' half of the points the PD averages are outside the data (its column
#' `_extrapolation_`, see [extrapolation]). Near 1, PD and AL differ
#' because the PD averages predictions at combinations of values the data
#' do not have: read the AL profile.
#'
#' @section Bootstrap bands:
#' With `bands = "bootstrap"` (or `bands = profile_bands("bootstrap", level,
#' B)`), each distance gets a percentile band at `level` (0.95) from `B`
#' (200) resamples of the background rows (drawn with
#' replacement after the draw of the `N` rows, reproducible with `seed`,
#' the same for any number of threads). The three profiles carry their
#' bootstrap replicates (as [model_profile()] computes them with
#' `bands = "bootstrap"`, from the ICE curves and local effects already
#' predicted: no extra prediction), and a distance's replicate is the same
#' distance between the three replicate profiles of that resample, read at
#' the rows' values with each row weighted by the number of times the
#' resample draws it (times its case weight). A distance is never negative
#' and the resamples' noise adds to it, so near 0 the band lies above the
#' estimate rather than around it: read its width, not whether it holds 0.
#'
#' @inheritParams model_profile
#' @param bands `"none"` or `"bootstrap"`: percentile bands of the
#'   distances (see the section on bootstrap bands); or a setting of
#'   [profile_bands()] of these kinds, with its level and number of
#'   resamples, such as `profile_bands("bootstrap", level = 0.9, B = 100)`.
#' @param grid The grids: a number of grid points, or a [profile_grids()]
#'   setting of `points` (of the PD and LD profiles, 101 by default) and
#'   `intervals` (of the AL profile, 40 by default).
#' @param seed `NULL` or a number: the draw of the `N` rows, the same for
#'   the three profiles. As for [model_profile()], with a number the
#'   session's random-number stream is left exactly as it was; with `NULL`
#'   nothing is promised about it.
#' @param ... DALEX's `grid_points` (`grid = profile_grids(points = )`); the
#'   deprecated `intervals`, `level` and `B`.
#' @returns An object of class `mp_comparison`: a list with `distances`, a
#'   data frame with one row per variable (`variable`, `label`, `pd_al`,
#'   `ld_al`, `pd_ld`, `al_range`, `pd_al_extrapolated`), ordered by the largest of `pd_al` and
#'   `ld_al`, and `profiles`, the three [model_profile()] results (`pd`,
#'   `ld`, `al`). With `bands = "bootstrap"`, each distance is followed in
#'   `distances` by its band, `<distance>_lower` and `<distance>_upper`
#'   (e.g. `pd_al_lower`, `pd_al_upper`); `bands` is the setting
#'   (`list(type, level, B)`); `replicates` a list of three matrices
#'   (`pd_al`, `ld_al`, `pd_ld`), a row per row of `distances` and a column
#'   per resample; and the profiles have their own bands and replicates.
#'   Without bands, `bands` and `replicates` are `NULL`.
#' @references
#' Biecek, P. and Burzykowski, T. (2021). *Explanatory Model Analysis*,
#' chapter 18. Chapman and Hall/CRC. \doi{10.1201/9780429027192}
#' @examples
#' # x2 is correlated with x1 and does not enter the model: its LD profile
#' # borrows x1's effect, its PD and AL profiles are flat.
#' set.seed(1)
#' x1 <- runif(500)
#' d <- data.frame(x1 = x1, x2 = x1 + rnorm(500, sd = 0.1), x3 = runif(500))
#' f <- function(m, newdata) 2 * newdata$x1 + newdata$x3^2
#' cmp <- compare_profiles(NULL, d, predict_function = f)
#' cmp
#' plot(cmp)
#' @export
compare_profiles <- function(x, data = NULL, predict_function = NULL, variables = NULL, ...,
                             N = 1000, grid = profile_grids(), bandwidth = NULL,
                             bands = c("none", "bootstrap"),
                             label = NULL, seed = NULL, weights = NULL, class = NULL, threads = NULL,
                             memory_budget = getOption("modelprofiles.memory_budget", 256),
                             engine = c("auto", "native", "predict")) {
  env <- environment()
  call <- user_call(env)
  door <- front_door(list(...), "compare_profiles", env)
  g <- grid_settings(grid, door$grid, list(points = 101L, intervals = 40L), env)
  start <- start_call("compare_profiles", env, list(), x, data, predict_function, label, weights, threads,
                      memory_budget, seed, engine, bands, c("none", "bootstrap"), door$level, door$B)
  on.exit(start$restore_seed(), add = TRUE)
  inputs <- start$inputs
  N <- check_N(N, env)
  explicit <- !is.null(variables)
  variables <- profile_variables(inputs, variables, if (explicit) "conditional" else "partial",
                                 NULL, character(), env)
  bandwidth <- check_bandwidth(bandwidth, variables, env)
  rows <- setup_rows(inputs, N, seed)
  # The three profiles average over the same rows, with one setup.
  settings <- list(
    pd = profile_settings("partial", grid_points = g$points),
    ld = profile_settings("conditional", "kernel", grid_points = g$points, bandwidth = bandwidth),
    al = profile_settings("accumulated", "interval", intervals = g$intervals)
  )
  for (k in names(settings)) {
    settings[[k]]$native <- native_for(start$engine, settings[[k]]$type, settings[[k]]$method, length(rows), inputs)
  }
  setup <- new_setup(inputs, rows, class, start$engine, linear = TRUE)
  parts <- whole_part(setup)
  progress <- new_progress(3 * length(variables))
  # The requests of the three profiles run as one stream (under a plan,
  # the workers go from one profile to the next without waiting).
  preps <- lapply(settings, function(s) {
    quiet_left_out(profile_requests(setup, inputs, s, variables, parts, progress), s)
  })
  makers <- unlist(lapply(names(settings), function(k) {
    lapply(preps[[k]]$makers, function(m) {
      force(m)
      function() quiet_left_out(m(), settings[[k]])
    })
  }), recursive = FALSE)
  res <- execute(setup, makers, progress)
  ends <- cumsum(lengths(lapply(preps, `[[`, "makers")))
  profiles <- lapply(stats::setNames(seq_along(settings), names(settings)), function(k) {
    at <- seq_len(length(preps[[k]]$makers)) + if (k > 1L) ends[k - 1L] else 0L
    run <- profile_run(preps[[k]], res[at], attr(res, "n_predictions")[at])
    profile_result(setup, inputs, settings[[k]], variables, parts, run, call)
  })
  distances <- profile_distances(profiles, variables, setup)
  new_mp_comparison(list(distances = distances$table, profiles = profiles, label = setup$label,
                         bands = band_report(setup),
                         replicates = distances$replicates, call = call))
}

# The LD profiles warn of rows left out for a missing value; the AL
# profiles (settings `s`) leave the same rows out, silently.
quiet_left_out <- function(expr, s) {
  withCallingHandlers(
    expr,
    modelprofiles_rows_left_out = function(w) if (s$type == "accumulated") invokeRestart("muffleWarning")
  )
}

# The three distances of a comparison, in order: the profiles of each.
distance_pairs <- list(pd_al = c("pd", "al"), ld_al = c("ld", "al"), pd_ld = c("pd", "ld"))
distance_names <- names(distance_pairs)
# The columns of the distances with their bands, in order.
distance_band_names <- as.vector(rbind(distance_names, paste0(distance_names, "_lower"),
                                       paste0(distance_names, "_upper")))

# The distances between the three profiles of each variable and label,
# largest first: list(table, replicates). With bootstrap bands (the
# profiles' replicates, from the resamples setup$resamples), each
# distance's replicate is the same distance between the replicate
# profiles with the rows weighted by the resample's counts; the table gets
# each distance's band (<distance>_lower, <distance>_upper) and
# `replicates` a matrix per distance, a row per row of the table and a
# column per resample.
profile_distances <- function(profiles, variables, setup) {
  pd <- profiles$pd
  w <- pd$weights %||% rep(1, length(pd$rows))
  boot <- setup$bands$resampled
  a <- profiles$al$agr_profiles
  rows <- list()
  reps <- list()
  for (v in variables) {
    xi <- pd$observed[[v]]
    for (lab in pd$labels) {
      g <- lapply(profiles, profile_at, v = v, label = lab, x = xi)
      d <- vapply(distance_pairs, function(pr) centred_distance(g[[pr[1L]]], g[[pr[2L]]], w), numeric(1))
      if (boot) {
        r <- distance_replicates(profiles, v, lab, xi, w, setup$resamples)
        reps[[length(reps) + 1L]] <- r
        lim <- band_limits(d, setup$bands$level, reps = r)
        d <- stats::setNames(as.vector(rbind(d, lim$lower, lim$upper)), distance_band_names)
      }
      rows[[length(rows) + 1L]] <- data.frame(
        variable = v, label = lab, as.list(d),
        al_range = diff(range(a$`_yhat_`[a$`_vname_` == v & a$`_label_` == lab])),
        pd_al_extrapolated = extrapolated_difference(pd, v, lab, xi, g$pd, g$al, w), stringsAsFactors = FALSE
      )
    }
  }
  distances <- do.call(rbind, rows)
  o <- order(-pmax(distances$pd_al, distances$ld_al))
  distances <- distances[o, , drop = FALSE]
  rownames(distances) <- NULL
  if (boot) {
    reps <- lapply(stats::setNames(seq_along(distance_names), distance_names), function(k) {
      do.call(rbind, lapply(reps[o], function(r) r[k, ]))
    })
  }
  list(table = distances, replicates = if (boot) reps)
}

# The replicates of the three distances of variable v and label `lab`
# (3 x B): each profile's replicate read at the rows' values xi, the rows
# weighted by the resample's counts.
distance_replicates <- function(profiles, v, lab, xi, w, counts) {
  vapply(seq_len(ncol(counts)), function(b) {
    g <- lapply(profiles, function(res) profile_at(res, v, lab, xi, res$replicates[, b]))
    vapply(distance_pairs, function(pr) centred_distance(g[[pr[1L]]], g[[pr[2L]]], counts[, b] * w), numeric(1))
  }, numeric(length(distance_pairs)))
}

# A profile read at values x: linear interpolation over the defined grid
# points for numeric variables (constant beyond the ends), the level's
# value for categorical ones. `y`: the values of the rows of
# agr_profiles, the estimate's or a replicate's.
profile_at <- function(res, v, label, x, y = res$agr_profiles$`_yhat_`) {
  a <- res$agr_profiles
  at <- which(a$`_vname_` == v & a$`_label_` == label)
  y <- y[at]
  if (column_kind(res$grids[[v]]) == "numeric") {
    ok <- !is.na(y)
    if (!any(ok)) return(rep(NA_real_, length(x)))
    if (sum(ok) == 1L) return(rep(y[ok], length(x)))
    # (`_x_` is character when the variables' scales are mixed; the grid is
    # on the variable's own scale, e.g. Dates, as are the rows' values x.)
    gx <- scale_numbers(res$grids[[v]], if (is.character(a$`_x_`)) res$grids[[v]] else a$`_x_`[at])
    return(stats::approx(gx[ok], y[ok], xout = scale_numbers(res$grids[[v]], x), rule = 2, ties = mean)$y)
  }
  y[match(as.character(x), as.character(a$`_x_`[at]))]
}

# The share of the squared PD-AL distance (g: PD, h: AL at the rows'
# values xi) that comes from rows where the PD extrapolates (more than
# extrapolation_level of its points there outside the data, its
# `_extrapolation_` read at the row's value as the profile is); NA when
# the PD has no measure or the profiles coincide.
extrapolated_difference <- function(pd, v, label, xi, g, h, w) {
  a <- pd$agr_profiles
  if (is.null(a$`_extrapolation_`)) return(NA_real_)
  share <- profile_at(pd, v, label, xi, a$`_extrapolation_`)
  ok <- !is.na(g) & !is.na(h) & !is.na(share)
  d <- (g - sum(w[ok] * g[ok]) / sum(w[ok])) - (h - sum(w[ok] * h[ok]) / sum(w[ok]))
  total <- sum(w[ok] * d[ok]^2)
  if (!(total > 0)) return(NA_real_)
  out <- ok & share > extrapolation_level
  sum(w[out] * d[out]^2) / total
}

centred_distance <- function(g, h, w) {
  ok <- !is.na(g) & !is.na(h)
  w <- w[ok]
  d <- (g[ok] - sum(w * g[ok]) / sum(w)) - (h[ok] - sum(w * h[ok]) / sum(w))
  sqrt(sum(w * d^2) / sum(w))
}
