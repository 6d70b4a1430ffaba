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
#' @inheritParams model_profile
#' @param grid_points Maximum number of grid points per numeric variable of
#'   the PD and LD profiles.
#' @param seed `NULL` or a number: the draw of the `N` rows, the same for
#'   the three profiles.
#' @param ... Must be empty.
#' @returns An object of class `mp_comparison`: a list with `distances`, a
#'   data frame with one row per variable (`variable`, `label`, `pd_al`,
#'   `ld_al`, `pd_ld`, `al_range`), ordered by the largest of `pd_al` and
#'   `ld_al`, and `profiles`, the three [model_profile()] results (`pd`,
#'   `ld`, `al`).
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
compare_profiles <- function(x, data = NULL, predict_function = NULL, variables = NULL,
                             N = 1000, grid_points = 101, intervals = 40, bandwidth = NULL,
                             label = NULL, seed = NULL, weights = NULL, class = NULL,
                             threads = NULL,
                             memory_budget = getOption("modelprofiles.memory_budget", 256),
                             engine = c("auto", "native", "predict"), ...) {
  call <- match.call()
  env <- environment()
  check_entry(missing(x), ...length(), names(list(...)), "compare_profiles", env)
  engine <- rlang::arg_match(engine, error_call = env)
  inputs <- setup_inputs(x, data, predict_function, label, weights, threads, memory_budget, env)
  N <- check_N(N, env)
  grid_points <- check_whole(grid_points, "grid_points", 2, env)
  intervals <- check_whole(intervals, "intervals", 1, env)
  explicit <- !is.null(variables)
  variables <- profile_variables(inputs, variables, if (explicit) "conditional" else "partial",
                                 NULL, character(), env)
  bandwidth <- check_bandwidth(bandwidth, variables, env)
  rows <- setup_rows(inputs, N, seed)
  # The three profiles average over the same rows, with one setup.
  settings <- list(
    pd = profile_settings("partial", grid_points = grid_points),
    ld = profile_settings("conditional", "kernel", grid_points = grid_points, bandwidth = bandwidth),
    al = profile_settings("accumulated", "interval", intervals = intervals)
  )
  for (k in names(settings)) {
    settings[[k]]$native <- native_for(engine, settings[[k]]$type, settings[[k]]$method, length(rows))
  }
  setup <- new_setup(inputs, rows, class, engine, linear = TRUE)
  parts <- whole_part(setup)
  progress <- new_progress(3 * length(variables))
  profiles <- lapply(settings, function(s) {
    # The LD profiles warn of rows left out for a missing value; the AL
    # profiles leave the same rows out.
    run <- withCallingHandlers(
      run_profiles(setup, inputs, s, variables, parts, progress),
      modelprofiles_rows_left_out = function(w) if (s$type == "accumulated") invokeRestart("muffleWarning")
    )
    profile_result(setup, inputs, s, variables, parts, run, call)
  })
  distances <- profile_distances(profiles, variables)
  structure(list(distances = distances, profiles = profiles, label = setup$label, call = call),
            class = "mp_comparison")
}

# The distances between the three profiles of each variable and label,
# largest first.
profile_distances <- function(profiles, variables) {
  pd <- profiles$pd
  w <- pd$weights %||% rep(1, length(pd$rows))
  rows <- list()
  for (v in variables) {
    xi <- pd$observed[[v]]
    for (lab in pd$labels) {
      g <- lapply(profiles, function(res) profile_at(res, v, lab, xi))
      a <- profiles$al$agr_profiles
      alp <- a$`_yhat_`[a$`_vname_` == v & a$`_label_` == lab]
      rows[[length(rows) + 1L]] <- data.frame(
        variable = v, label = lab,
        pd_al = centred_distance(g$pd, g$al, w),
        ld_al = centred_distance(g$ld, g$al, w),
        pd_ld = centred_distance(g$pd, g$ld, w),
        al_range = diff(range(alp)),
        stringsAsFactors = FALSE
      )
    }
  }
  distances <- do.call(rbind, rows)
  distances <- distances[order(-pmax(distances$pd_al, distances$ld_al)), , drop = FALSE]
  rownames(distances) <- NULL
  distances
}

# A profile read at values x: linear interpolation for numeric variables
# (constant beyond the ends), the level's value for categorical ones.
profile_at <- function(res, v, label, x) {
  a <- res$agr_profiles
  a <- a[a$`_vname_` == v & a$`_label_` == label, , drop = FALSE]
  if (column_kind(res$grids[[v]]) == "numeric") {
    ok <- !is.na(a$`_yhat_`)
    # (`_x_` is character when the variables' scales are mixed; the grid is
    # on the variable's own scale, e.g. Dates, as are the rows' values x.)
    gx <- scale_numbers(res$grids[[v]], if (is.character(a$`_x_`)) res$grids[[v]] else a$`_x_`)[ok]
    gy <- a$`_yhat_`[ok]
    if (length(gx) == 1L) return(rep(gy, length(x)))
    return(stats::approx(gx, gy, xout = scale_numbers(res$grids[[v]], x), rule = 2, ties = mean)$y)
  }
  a$`_yhat_`[match(as.character(x), as.character(a$`_x_`))]
}

centred_distance <- function(g, h, w) {
  ok <- !is.na(g) & !is.na(h)
  g <- g[ok]
  h <- h[ok]
  w <- w[ok]
  d <- (g - sum(w * g) / sum(w)) - (h - sum(w * h) / sum(w))
  sqrt(sum(w * d^2) / sum(w))
}

#' @rdname compare_profiles
#' @export
print.mp_comparison <- function(x, ...) {
  cli::cat_line("<mp_comparison> PD, LD and AL profiles of ", nrow(x$distances),
                " variable", if (nrow(x$distances) != 1L) "s", " for ",
                encodeString(x$label, quote = "\""))
  cli::cat_line("  root-mean-square distances between centred profiles at the rows' values,")
  cli::cat_line("  largest first (ld_al: correlation; pd_al: interaction with correlated variables)")
  print(x$distances, row.names = FALSE, digits = 4)
  invisible(x)
}

#' @rdname compare_profiles
#' @param row.names,optional Ignored.
#' @export
as.data.frame.mp_comparison <- function(x, row.names = NULL, optional = FALSE, ...) x$distances

#' @rdname compare_profiles
#' @param object An `mp_comparison` result.
#' @param n Number of variables to draw, the most different first.
#' @param geom `"profiles"` (the three profiles of the `n` variables, as
#'   `plot(pd, ld, al)`) or `"distances"` (a dot chart of the distances).
#' @exportS3Method ggplot2::autoplot
autoplot.mp_comparison <- function(object, ..., geom = c("profiles", "distances"), n = 4) {
  type <- match.arg(geom)
  check_plot_dots(list(...), "autoplot.mp_comparison")
  d <- object$distances
  vars <- utils::head(unique(d$variable), n)
  if (type == "profiles") {
    p <- object$profiles
    kinds <- vapply(vars, function(v) column_kind(p$pd$grids[[v]]) == "numeric", logical(1))
    if (any(kinds)) vars <- vars[kinds]
    return(autoplot.mp_profile(p$pd, p$ld, p$al, variables = vars, ...))
  }
  long <- do.call(rbind, lapply(c("pd_al", "ld_al", "pd_ld"), function(k) {
    data.frame(variable = d$variable, label = d$label, pair = sub("_", " vs ", toupper(k)),
               distance = d[[k]], stringsAsFactors = FALSE)
  }))
  long <- long[long$variable %in% vars, ]
  long$variable <- factor(long$variable, levels = rev(vars))
  ggplot2::ggplot(long, ggplot2::aes(.data$distance, .data$variable, colour = .data$pair)) +
    ggplot2::geom_point(size = 2.5) +
    ggplot2::labs(x = "distance between centred profiles", y = NULL, colour = NULL,
                  subtitle = paste("PD, LD and AL profiles compared,", object$label)) +
    ggplot2::theme_bw() +
    ggplot2::theme(legend.position = "bottom")
}

#' @rdname compare_profiles
#' @export
plot.mp_comparison <- function(x, ...) autoplot.mp_comparison(x, ...)
