# One-variable profiles of a setup: the requests of every variable within
# every part (all background rows, or subgroups), run by one executor. Used
# by model_profile(), compare_profiles() and hidden_interactions().

# The settings of a profile, checked by the entry point: type ("partial",
# "conditional", "accumulated"), method, grid_points, splits_type, splits
# (user grids by variable), intervals, bandwidth (by variable), keep_ice,
# level_order, na_level, and native (may the native engine stand in?).
profile_settings <- function(type, method = "exact", grid_points = 101, splits_type = "quantiles",
                             splits = list(), intervals = 40, bandwidth = list(), keep_ice = FALSE,
                             level_order = "similarity", na_level = FALSE, native = TRUE) {
  list(type = type, method = method, grid_points = grid_points, splits_type = splits_type,
       splits = splits, intervals = intervals, bandwidth = bandwidth, keep_ice = keep_ice,
       level_order = level_order, na_level = na_level, native = native)
}

# May the native engine stand in for a profile of this type and method
# over n background rows? "auto" compiles the model for the interval
# methods (two predictions per row and variable) only when that is faster
# than predicting (native_pays()).
native_for <- function(engine, type, method, n, inputs) {
  if (engine == "predict") return(FALSE)
  engine == "native" || type == "partial" || method != "interval" || native_pays(inputs, 2 * n)
}

# The engine a profile reports: "native" when the native or linear engine
# stood in for the predict function.
profile_engine <- function(setup, s) {
  if (request_engine(setup, s$native, s$type == "partial") == "predict") "predict" else "native"
}

# Profiles of `variables` within `parts` (see whole_part(), group_parts()):
# list(raw (per part, per variable: an estimate, or NULL where the
# variable takes a single value), grids, bandwidth, fitted (predictions at
# the background rows, NA where not made, or NULL), n_predictions).
# `inputs` (setup_inputs()) gives the data that grids come from.
run_profiles <- function(setup, inputs, s, variables, parts, progress = NULL) {
  prep <- profile_requests(setup, inputs, s, variables, parts, progress)
  res <- execute(prep$setup, prep$makers, progress)
  profile_run(prep, res, attr(res, "n_predictions"))
}

# The requests of run_profiles() (`makers`, one per part and variable, part
# by part), and what profile_run() makes their results into: so that the
# requests of several profiles (compare_profiles()) run as one stream.
profile_requests <- function(setup, inputs, s, variables, parts, progress = NULL) {
  js <- match(variables, names(setup$data))
  # (Interval AL has no grid: its edges come from its rows.)
  gridded <- !(s$type == "accumulated" && s$method == "interval")
  nm <- if (identical(s$splits_type, "splits") && gridded) splits_model(setup)
  grids <- variable_grids(inputs, s, variables, nm, setup)
  bandwidth <- list()
  for (v in variables) {
    if (s$method == "kernel" && column_kind(inputs$data[[v]]) == "numeric") {
      bandwidth[[v]] <- s$bandwidth[[v]] %||%
        weighted_bw_nrd0(setup$data[[v]], if (setup$weighted) setup$case_weights)
      collect_between(setup)
    }
  }
  keep <- ice_kept(setup, s, grids, parts, variables)
  inform_ice_dropped(setup, s, keep, variables)
  # The kept curves' memory is not the chunks'.
  setup <- reserve_memory(setup, attr(keep, "bytes"))
  collect_between(setup)
  fitted <- profile_fitted(setup, s, js, parts, progress)
  # The predictions at the rows, and a row's interval (AL), are held for
  # the rest of the call.
  if (!is.null(fitted$values)) setup <- reserve_memory(setup, 8 * length(fitted$values) + 4 * setup$n)
  # (AL's shift alone reads them.)
  if (s$type == "accumulated") setup <- resampled_fitted(setup, fitted$values)
  collect_between(setup)
  whole <- length(parts) == 1L && is.na(parts[[1L]]$level)
  # Part by part, each variable in order.
  p <- rep(seq_along(parts), each = length(variables))
  i <- rep(seq_along(variables), times = length(parts))
  unsupported <- new.env(parent = emptyenv())
  makers <- Map(function(p, i) {
    profile_maker(setup, s, js[i], parts[[p]], grids[[i]], bandwidth[[variables[i]]], keep[p, i],
                  fitted$values, whole, unsupported)
  }, p, i)
  list(setup = setup, makers = unname(makers), unsupported = unsupported, grids = grids,
       bandwidth = bandwidth, fitted = fitted, variables = variables, parts = parts,
       steps = if (!is.null(nm) && s$type == "partial") split_steps(nm),
       # (A whole-number column's grid is the whole numbers on both sides of
       # each split: its steps are drawn halfway between them.)
       steps_mid = if (!is.null(nm)) Filter(function(v) is.null(s$splits[[v]]) && whole_scale(inputs$data[[v]]), variables))
}

# run_profiles()'s result from the results `res` of profile_requests()'s
# requests (`counts`: their predictions).
profile_run <- function(prep, res, counts) {
  warn_no_support(prep$unsupported, prep$setup$error_call)
  nv <- length(prep$variables)
  raw <- lapply(seq_along(prep$parts), function(p) {
    stats::setNames(res[(p - 1L) * nv + seq_len(nv)], prep$variables)
  })
  list(raw = raw, grids = prep$grids, bandwidth = prep$bandwidth, fitted = prep$fitted$values,
       n_predictions = sum(counts) + prep$fitted$n, steps = prep$steps, steps_mid = prep$steps_mid)
}

# The grid of each variable (NULL for interval AL, whose edges come from
# its rows): the user's (s$splits), the split values of a tree ensemble
# `nm` (splits_model(), for "splits" grids), or make_grid()'s of all rows
# of the data. `inputs` (setup_inputs()) gives the data.
variable_grids <- function(inputs, s, variables, nm = NULL, setup = NULL) {
  lapply(stats::setNames(variables, variables), function(v) {
    if (s$type == "accumulated" && is.null(s$splits[[v]])) return(NULL)
    if (!is.null(s$splits[[v]])) return(s$splits[[v]])
    x <- inputs$data[[v]]
    if (!is.null(nm) && column_kind(x) == "numeric") return(split_grid(nm, x, v))
    on.exit(if (!is.null(setup)) collect_between(setup))
    make_grid(x, s$grid_points, s$splits_type, s$na_level, inputs$weights)
  })
}

# Which ICE curves are kept: in order, while all of them together fit in
# the budget's "kept_ice" share (ice_bytes_per_point a point of a G x rows
# array; ice_bytes_per_row a row of the linear engine's intercepts and
# slopes): a logical parts x variables matrix with attribute "bytes", what
# the kept curves take.
ice_kept <- function(setup, s, grids, parts, variables) {
  keep <- matrix(FALSE, length(parts), length(variables))
  used <- 0
  if (s$keep_ice) {
    limit <- budget_bytes(setup, "kept_ice")
    js <- match(variables, names(setup$data))
    for (p in seq_along(parts)) {
      for (i in seq_along(variables)) {
        G <- if (is.null(grids[[i]])) s$grid_points else length(grids[[i]])
        m <- length(parts[[p]]$rows)
        bytes <- if (s$type == "partial" && request_engine(setup, linear = TRUE, cols = js[i]) == "linear") {
          m * ice_bytes_per_row
        } else {
          as.double(G) * m * setup$n_outputs * ice_bytes_per_point
        }
        keep[p, i] <- used + bytes <= limit
        if (keep[p, i]) used <- used + bytes
      }
    }
  }
  structure(keep, bytes = used)
}

# One message for the PD variables whose ICE curves are not kept.
inform_ice_dropped <- function(setup, s, keep, variables) {
  if (!s$keep_ice || s$type != "partial" || all(keep)) return(invisible())
  dropped <- variables[colSums(!keep) > 0]
  why <- if (length(variables) > 1L) "with the others they would take" else "they would take"
  cli::cli_inform(c(
    paste0("ICE curves of {.field {dropped}} not kept: {why} more than ", share_words("kept_ice"),
           "{.arg memory_budget} ({setup$memory_budget} MiB)."),
    i = "Raise {.arg memory_budget}, lower {.arg N}, or set {.code keep_ice = FALSE} to silence this."
  ))
}

# The predictions at the background rows that AL profiles (their shift by
# the mean prediction) and LD profiles of categorical variables need,
# requested before the profiles: list(values (n x outputs, NA where not
# needed), n), or values NULL when none are needed. Only rows where the
# profiled variables are observed are predicted.
profile_fitted <- function(setup, s, js, parts, progress) {
  needs <- vapply(js, function(j) {
    s$type == "accumulated" ||
      (s$type == "conditional" && column_kind(setup$data[[j]]) == "categorical")
  }, logical(1))
  if (!any(needs)) return(list(values = NULL, n = 0))
  rows <- row_union(unlist(lapply(parts, function(p) {
    lapply(js[needs], function(j) observed_rows(setup, j, p$rows, s$na_level))
  }), recursive = FALSE), setup$n)
  out <- execute(setup, list(fitted_request(setup, rows, s$native)), progress)
  values <- out[[1L]]
  if (length(rows) < setup$n) {
    values <- matrix(NA_real_, setup$n, setup$n_outputs)
    values[rows, ] <- out[[1L]]
  }
  list(values = values, n = sum(attr(out, "n_predictions")))
}

# The request of one variable (column j) within one part, made when it
# starts (so that its messages come in order): its checks, then the
# estimator's request, whose result is the estimate (or NULL when the
# variable takes a single value in a subgroup).
profile_maker <- function(setup, s, j, part, grid, bandwidth, keep, fitted, whole,
                          unsupported = new.env(parent = emptyenv())) {
  function() {
    collect_between(setup) # (what the previous request left)
    v <- names(setup$data)[j]
    col <- setup$data[[j]]
    kind <- column_kind(col)
    call <- setup$error_call
    if (s$type != "partial") {
      x <- at_rows(col, part$rows)
      if (!whole && !varies(x)) {
        cli::cli_inform("{.field {v}} takes a single value in subgroup {.val {part$level}}: not profiled there.")
        return(known_request(NULL))
      }
      n_na <- if (anyNA(x)) sum(is.na(x)) else 0L
      if (n_na > 0L && !(s$na_level && kind == "categorical")) {
        warn_left_out(v, n_na, length(part$rows), kind, call)
      }
      if (!varies(x)) {
        cli::cli_abort("{.field {v}} takes a single value among the background rows; its profile is not defined.", call = call)
      }
    }
    if (setup$bands$per_row && uses_curves(s, kind)) {
      check_band_curves(setup, v, if (is.null(grid)) s$grid_points else length(grid), length(part$rows))
    }
    req <- estimator_request(setup, s, j, kind, part$rows, grid, bandwidth, keep, fitted)
    finish <- req$finish
    req$finish <- function(acc) {
      e <- finish(acc)
      if (!is.null(e) && any(e$no_support)) {
        key <- if (whole) v else paste0(v, " (", part$level, ")")
        unsupported$found[[key]] <- e$x[e$no_support]
      }
      e
    }
    req
  }
}

# The estimator's request for column j of kind `kind` over rows `rows`.
estimator_request <- function(setup, s, j, kind, rows, grid, bandwidth, keep, fitted) {
  native <- s$native
  switch(
    s$type,
    partial = partial_request(setup, j, grid, rows, keep, native = native),
    conditional = if (kind == "categorical") {
      known_request(local_levels(setup, j, grid, rows, fitted, s$na_level))
    } else if (s$method == "kernel") {
      local_kernel_request(setup, j, grid, rows, bandwidth, keep, native = native)
    } else {
      local_interval_request(setup, j, grid, rows, s$intervals, native = native)
    },
    accumulated = if (kind == "categorical") {
      levels <- al_level_order(setup, j, s$level_order, rows, s$na_level)
      accumulated_levels_request(setup, j, levels, rows, fitted, s$na_level, native = native)
    } else if (s$method == "interval") {
      accumulated_interval_request(setup, j, s$intervals, rows, fitted, edges = grid, native = native)
    } else {
      accumulated_kernel_request(setup, j, s$grid_points, rows, bandwidth, keep, fitted, native = native,
                                 grid = grid, dalex_centre = isTRUE(s$al_center))
    }
  )
}

# Grid points of LD profiles without support (`unsupported$found`, by
# variable, in the order met): one warning for all (the estimates stand).
warn_no_support <- function(unsupported, call) {
  bad <- unsupported$found
  if (!length(bad)) return(invisible())
  n <- sum(lengths(bad))
  where <- vapply(names(bad), function(k) {
    paste0(k, ": ", paste(trimws(format(bad[[k]], digits = 4)), collapse = ", "))
  }, character(1))
  head <- if (length(bad) == 1L) {
    "{.field {names(bad)}}: {n} grid point{?s} without background rows nearby; {?its/their} local dependence is {.val {NA}}."
  } else {
    "{n} grid points of {length(bad)} profiles without background rows nearby; their local dependence is {.val {NA}}."
  }
  if (length(bad) == 1L) {
    where <- paste0(if (n == 1L) "Grid point: " else "Grid points: ", sub("^[^:]*: ", "", where))
  }
  mp_warn(c(head, stats::setNames(where, rep("i", length(where)))), call = call,
                class = "modelprofiles_no_support")
}

# Do the bands of the estimator of a column of this kind need its ICE
# curves in memory (kernel AL's)?
uses_curves <- function(s, kind) {
  s$type == "accumulated" && kind == "numeric" && s$method == "kernel"
}
