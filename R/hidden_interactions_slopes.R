# The slopes behind hidden_interactions(): one pass over the ICE curves
# of the whole and of every subgroup, then the slopes, their standard
# errors and the rules.

# The profiles of `variables` over all background rows and within the
# subgroups of every grouping (`grouped`: group_parts() per grouping), and
# each row's own slope, from one prediction of the ICE curves of every
# background row: list(whole (run_profiles()'s result for all rows),
# groups (one such per grouping, its profiles made of the same curves, no
# prediction of their own), d (per variable, the rows' slopes), ends (per
# variable, the positions of the first and last grid points)).
run_slopes <- function(setup, inputs, s, variables, grouped) {
  nm <- if (identical(s$splits_type, "splits")) splits_model(setup)
  grids <- variable_grids(inputs, s, variables, nm)
  js <- match(variables, names(setup$data))
  # Each background row's subgroup (part) in each grouping, 0 for none.
  codes <- lapply(grouped, function(gp) {
    k <- integer(setup$n)
    for (p in seq_along(gp$parts)) k[gp$parts[[p]]$rows] <- p
    k
  })
  makers <- lapply(seq_along(variables), function(i) {
    function() slope_request(setup, js[i], grids[[i]], codes, s$native)
  })
  res <- execute(setup, makers, new_progress(length(variables)))
  est <- function(f) stats::setNames(lapply(res, f), variables)
  steps <- if (!is.null(nm)) split_steps(nm)
  whole <- list(raw = list(est(function(e) e$whole)), grids = grids, bandwidth = list(), fitted = NULL,
                n_predictions = sum(attr(res, "n_predictions")), steps = steps)
  groups <- lapply(stats::setNames(names(grouped), names(grouped)), function(name) {
    raw <- lapply(seq_along(grouped[[name]]$parts), function(p) est(function(e) e$groups[[name]][[p]]))
    list(raw = raw, grids = grids, bandwidth = list(), fitted = NULL, n_predictions = 0, steps = steps)
  })
  list(whole = whole, groups = groups, d = est(function(e) e$d), ends = est(function(e) e$ends))
}

# The positions of the first and last points of a grid: the smallest and
# largest value of a numeric (or date, time) grid, the first and last level
# of a categorical one.
grid_ends <- function(grid) {
  if (column_kind(grid) == "numeric") {
    z <- as.double(unclass(grid))
    return(c(which.min(z), which.max(z)))
  }
  c(1L, length(grid))
}

# The request of the slopes of column j over `grid`: the ICE curves of all
# background rows, reduced chunk by chunk to the weighted sums of the
# overall profile, those of each subgroup of each grouping (`codes`: per
# grouping, each row's subgroup, 0 for none) and each row's slope.
slope_request <- function(setup, j, grid, codes, native) {
  G <- length(grid)
  n <- setup$n
  w <- setup$weights
  ends <- grid_ends(grid)
  sizes <- vapply(codes, function(k) max(0L, k), integer(1))
  keys <- paste0("group", seq_along(codes))
  curve_request(
    setup, j, list(column_values(setup$data[[j]], grid)), seq_len(n),
    reduce_block = function(pos, y) {
      if (inherits(y, "mp_affine") && !y$identity) y <- affine_values(y)
      wp <- w[pos]
      upd <- list(sums = curve_sums(setup, y, G, wp), d = place(matrix(row_slopes(y, G, ends)), pos))
      for (k in seq_along(codes)) {
        code <- codes[[k]][pos]
        S <- matrix(0, G, sizes[k])
        for (p in seq_len(sizes[k])) {
          sel <- which(code == p)
          if (length(sel)) S[, p] <- curve_sums(setup, curve_subset(y, G, sel), G, wp[sel])
        }
        upd[[keys[k]]] <- S
      }
      upd
    },
    init = function() {
      c(list(sums = matrix(0, G, 1L), d = matrix(0, n, 1L)),
        stats::setNames(lapply(sizes, function(L) matrix(0, G, L)), keys))
    },
    finish = function(acc) {
      groups <- lapply(seq_along(codes), function(k) {
        lapply(seq_len(sizes[k]), function(p) {
          r <- which(codes[[k]] == p)
          list(x = grid, yhat = acc[[keys[k]]][, p, drop = FALSE] / sum(w[r]), ice = NULL, ice_rows = r)
        })
      })
      list(whole = list(x = grid, yhat = acc$sums / sum(w), ice = NULL, ice_rows = seq_len(n)),
           groups = stats::setNames(groups, names(codes)), d = acc$d[, 1L], ends = ends)
    },
    native = native, linear = TRUE, affine = TRUE
  )
}

# Weighted sums over the rows of a chunk's ICE curves (a table, or the
# linear engine's affine curves with an identity link), per grid point: a
# G x 1 matrix, as partial_request() sums them.
curve_sums <- function(setup, y, G, w) {
  if (inherits(y, "mp_affine")) affine_sums(y, w) else table_sums(setup, y, G, w)
}

# The curves of rows `sel` of a chunk.
curve_subset <- function(y, G, sel) {
  if (inherits(y, "mp_affine")) {
    y$a <- y$a[sel]
    y$slope <- y$slope[sel]
    return(y)
  }
  y[rep((sel - 1L) * G, each = G) + seq_len(G), , drop = FALSE]
}

# Each row's slope: its curve at the last grid point minus at the first
# (positions `ends`).
row_slopes <- function(y, G, ends) {
  if (inherits(y, "mp_affine")) {
    return((y$a + y$z[ends[2L]] * y$slope) - (y$a + y$z[ends[1L]] * y$slope))
  }
  at <- (seq_len(nrow(y) %/% G) - 1L) * G
  y[at + ends[2L], 1L] - y[at + ends[1L], 1L]
}

# Slopes of every profile, one row per subgroup and variable ("all" first,
# then each grouping's subgroups in order), with their standard errors,
# intervals at `level`, p-values of a zero slope and, over the subgroup
# slopes of all variables, Holm's adjusted p-values.
slope_table <- function(setup, run, grouped, variables, level) {
  z <- stats::qnorm((1 + level) / 2)
  w <- setup$weights
  one <- function(e, rows, v, subgroup, grouping, size) {
    ends <- run$ends[[v]]
    first <- e$yhat[ends[1L], 1L]
    last <- e$yhat[ends[2L], 1L]
    slope <- last - first
    d <- run$d[[v]][rows]
    k <- w[rows]
    se <- weighted_mean_se(sum(k^2 * (d - slope)^2), sum(k), sum(k^2))
    data.frame(subgroup = subgroup, grouping = grouping, rows = size, variable = v, first = first,
               last = last, slope = slope, se = se, lower = slope - z * se, upper = slope + z * se,
               p_value = zero_slope_p(slope, se), stringsAsFactors = FALSE)
  }
  out <- bind_rows(lapply(variables, function(v) {
    all <- one(run$whole$raw[[1L]][[v]], seq_len(setup$n), v, "all", "all", setup$n)
    subs <- lapply(names(grouped), function(name) {
      parts <- grouped[[name]]$parts
      do.call(rbind, lapply(seq_along(parts), function(p) {
        one(run$groups[[name]]$raw[[p]][[v]], parts[[p]]$rows, v, paste(name, parts[[p]]$level), name,
            length(parts[[p]]$rows))
      }))
    })
    do.call(rbind, c(list(all), subs))
  }))
  sub <- out$subgroup != "all"
  out$p_holm <- NA_real_
  out$p_holm[sub] <- stats::p.adjust(out$p_value[sub], method = "holm")
  out$distinct <- NA
  out$distinct[sub] <- !is.na(out$p_holm[sub]) & out$p_holm[sub] < 1 - level
  out
}

# The two-sided normal p-value of a zero slope: 1 for a slope of 0 with a
# standard error of 0, 0 for another slope with a standard error of 0, NA
# without a standard error (a single row).
zero_slope_p <- function(slope, se) {
  if (is.na(se)) return(NA_real_)
  if (se == 0) return(if (slope == 0) 1 else 0)
  2 * stats::pnorm(-abs(slope / se))
}

# One row per variable: the overall slope and its interval, the extreme
# subgroups, the numbers of subgroups distinguishably rising and falling,
# and the rule's `flat` and `hidden`.
slope_summary <- function(slopes, variables, rule, ratio, flat, sloped) {
  bind_rows(lapply(variables, function(v) {
    s <- slopes[slopes$variable == v, , drop = FALSE]
    a <- s[s$subgroup == "all", , drop = FALSE]
    all <- a$slope
    g <- s[s$subgroup != "all", , drop = FALSE]
    hi <- if (nrow(g)) which.max(g$slope) else NA
    lo <- if (nrow(g)) which.min(g$slope) else NA
    max_s <- if (nrow(g)) g$slope[hi] else NA_real_
    min_s <- if (nrow(g)) g$slope[lo] else NA_real_
    up <- g$slope[g$distinct & g$slope > 0]
    down <- g$slope[g$distinct & g$slope < 0]
    if (rule == "thresholds") {
      is_flat <- abs(all) < flat
      hidden <- is_flat && isTRUE(max_s > sloped) && isTRUE(min_s < -sloped)
    } else {
      is_flat <- length(up) > 0L && length(down) > 0L && abs(all) < ratio * min(max(up), -min(down))
      hidden <- is_flat
    }
    data.frame(
      variable = v, slope = all, se = a$se, lower = a$lower, upper = a$upper,
      highest = if (nrow(g)) g$subgroup[hi] else NA_character_, max_slope = max_s,
      lowest = if (nrow(g)) g$subgroup[lo] else NA_character_, min_slope = min_s,
      gap = max_s - min_s, rising = length(up), falling = length(down),
      flat = is_flat, hidden = hidden, stringsAsFactors = FALSE
    )
  }))
}
