# Accumulated-local profiles: eq. (18.8) with Apley's intervals (method
# "interval", equal to ALEPlot) and the kernel-smoothed eq. (18.9), and the
# order of the levels of a categorical variable. The AL profile of a
# variable is shifted by the weighted mean prediction over the rows it uses
# (from `fitted`, the predictions at the background rows, requested before).

# The shift of an AL estimate, kept with it: `shift`, the weighted mean of
# `fitted` (per output) over the background rows `rows` (those where the
# variable is observed), and `shift_weight`, the sum of their weights (to
# pool the shifts of subgroups).
al_shift <- function(setup, fitted, rows) {
  f <- if (length(rows) == nrow(fitted)) fitted else fitted[rows, , drop = FALSE]
  list(shift = unname(as.double(weighted_col_means(f, at_rows(setup$weights, rows)))),
       shift_weight = sum(at_rows(setup$weights, rows)))
}

# AL profiles of subgroups on a common shift (al_shift = "common", DALEX's
# convention): per variable, the subgroups' shifts pooled with their
# weights. `raw`: per part, per variable, the estimates (NULL where not
# profiled).
al_common_shift <- function(raw) {
  vars <- unique(unlist(lapply(raw, names)))
  for (v in vars) {
    have <- which(vapply(raw, function(r) !is.null(r[[v]]$shift), logical(1)))
    if (!length(have)) next
    W <- vapply(raw[have], function(r) r[[v]]$shift_weight, numeric(1))
    S <- do.call(rbind, lapply(raw[have], function(r) r[[v]]$shift))
    common <- colSums(W * S) / sum(W)
    for (p in have) {
      e <- raw[[p]][[v]]
      d <- common - e$shift
      e$yhat <- e$yhat + rep(d, each = nrow(e$yhat))
      if (!is.null(e$reps)) e$reps <- e$reps + rep(d, each = prod(dim(e$reps)[1:2]))
      e$shift <- common
      raw[[p]][[v]] <- e
    }
  }
  raw
}

# The `mean_prediction` of an AL result, the shift each profile was given:
# a vector named by the profile labels (`labels`: the outputs of each part
# in turn) when every variable has the same shift within a label (unless
# variables are missing in different rows); else a variables x labels
# matrix (NA where not profiled). NULL for PD and LD.
al_mean_prediction <- function(raw, variables, labels) {
  C <- length(labels) %/% max(1L, length(raw))
  M <- matrix(NA_real_, length(variables), length(labels), dimnames = list(variables, labels))
  for (p in seq_along(raw)) {
    for (v in variables) {
      sh <- raw[[p]][[v]]$shift
      if (!is.null(sh)) M[v, (p - 1L) * C + seq_len(C)] <- sh
    }
  }
  M <- M[rowSums(!is.na(M)) > 0L, , drop = FALSE]
  if (!nrow(M)) return(NULL)
  one <- apply(M, 2L, function(m) {
    m <- m[!is.na(m)]
    if (length(m) && all(m == m[1L])) m[1L] else NA_real_
  })
  if (!anyNA(one)) return(one)
  M
}

# Interval AL of column j: two predictions per row, at the edges of its
# interval (Apley's edges of the observed rows among `rows`, or the user's
# `edges`, outside which rows are left out with a warning): list(x (the
# edges, on the column's scale), yhat (K + 1 x outputs), intervals).
accumulated_interval_request <- function(setup, j, intervals, rows, fitted, edges = NULL,
                                         native = TRUE) {
  rows <- observed_rows(setup, j, rows)
  # The shift's rows, also those the user's edges leave out.
  observed <- rows
  col <- setup$data[[j]]
  x <- as.double(at_rows(col, rows))
  w <- at_rows(setup$weights, rows)
  call <- setup$error_call
  if (is.null(edges)) {
    edges <- al_edges(x, intervals, w)
  } else {
    edges <- sort(unique(as.double(edges)))
    if (length(edges) < 2L) cli::cli_abort("Interval AL needs at least two edges.", call = call)
    inside <- x >= edges[1L] & x <= edges[length(edges)]
    if (!all(inside)) {
      mp_warn("{sum(!inside)} background row{?s} outside the edges [{format(edges[1L])}, {format(edges[length(edges)])}] {cli::qty(sum(!inside))}{?is/are} left out of the AL profile of {.field {names(setup$data)[j]}}.", call = call)
      rows <- rows[inside]
      x <- x[inside]
      w <- w[inside]
    }
  }
  K <- length(edges) - 1L
  k <- interval_index(x, edges, setup$threads)
  if (any(tabulate(k, K) == 0)) {
    cli::cli_abort("Interval AL needs rows in every interval; {sum(tabulate(k, K) == 0)} of the given intervals of {.field {names(setup$data)[j]}} {cli::qty(sum(tabulate(k, K) == 0))}{?is/are} empty.", call = call)
  }
  # A row's edge values are patterns of the edges, by index.
  edge_values <- column_values(col, edges)
  # Both predictions of a row in one call of stacked rows (in observation
  # order), or two calls over the rows themselves, sharing their columns.
  stack <- row_order(setup, length(rows), native) == "observation"
  keep_dy <- setup$bands$per_row
  chunks <- row_chunks(length(rows), request_chunk_rows(setup, native) / 2)
  new_request(
    length(chunks),
    make = function(q) {
      chunk <- chunks[[q]]
      if (stack) {
        return(list(stack_spec(pattern(rows[chunk], times = 2L), j,
                               list(pattern(edge_values, index = c(k[chunk], k[chunk] + 1L))))))
      }
      src <- source_rows(setup, rows[chunk])
      list(stack_spec(src, j, list(pattern(edge_values, index = k[chunk] + 1L))),
           stack_spec(src, j, list(pattern(edge_values, index = k[chunk]))))
    },
    reduce = function(q, ys) {
      chunk <- chunks[[q]]
      m <- length(chunk)
      dy <- if (stack) ys[[1L]][m + seq_len(m), , drop = FALSE] - ys[[1L]][seq_len(m), , drop = FALSE] else ys[[1L]] - ys[[2L]]
      if (keep_dy) return(list(dy = place(dy, chunk)))
      # Without bands, only the interval sums.
      list(sums = interval_sum_table(dy, k[chunk], w[chunk], K))
    },
    init = function() {
      if (keep_dy) list(dy = matrix(0, length(rows), setup$n_outputs)) else list(sums = matrix(0, K, setup$n_outputs + 1L))
    },
    finish = function(acc) {
      sh <- al_shift(setup, fitted, observed)
      yhat <- matrix(0, K + 1L, setup$n_outputs)
      bands <- vector("list", setup$n_outputs)
      for (c in seq_len(setup$n_outputs)) {
        s <- if (keep_dy) interval_sums(acc$dy, k, w, K, c) else list(sum = acc$sums[, c], wsum = acc$sums[, setup$n_outputs + 1L])
        yhat[, c] <- accumulate_center(s$sum / s$wsum, s$wsum) + sh$shift[c]
        if (keep_dy) {
          bands[[c]] <- al_interval_bands(setup, acc$dy[, c], k, w, K, s, rows, fitted[observed, c],
                                          observed, setup$weights[observed], c)
        }
      }
      c(list(x = edge_values, yhat = yhat, intervals = K), sh, bind_output_bands(bands))
    },
    native = native
  )
}

# Kernel AL of column j on an even grid of grid_points values over the
# observed rows (whole numbers for integer and Date columns), or the user's
# `grid`: list(x, yhat, ice, ice_rows). Centred over the rows, or with
# `dalex_centre` over the grid points, as DALEX centres it.
accumulated_kernel_request <- function(setup, j, grid_points, rows, bandwidth, keep_ice, fitted,
                                       native = TRUE, grid = NULL, dalex_centre = FALSE) {
  col <- setup$data[[j]]
  if (!is.null(grid)) {
    z <- sort(unique(as.double(grid)))
  } else {
    x <- as.double(col[observed_rows(setup, j, rows)])
    z <- seq(min(x), max(x), length.out = grid_points)
    if (whole_scale(col)) z <- unique(round(z))
  }
  kernel_request(setup, j, z, rows, bandwidth, TRUE, keep_ice, native = native, finish = function(k) {
    sh <- al_shift(setup, fitted, k$rows)
    yhat <- matrix(0, length(z), ncol(k$num))
    bands <- vector("list", ncol(k$num))
    kw <- if (setup$bands$per_row) k$kw()
    # Centred over the rows within the grid, or as DALEX (center = TRUE):
    # the profile's unweighted mean over its grid points.
    centring <- if (dalex_centre) list(x = z, w = rep(1, length(z)), inside = 1) else
      kernel_centring(setup, z, k$x, k$w, names(setup$data)[j])
    for (c in seq_len(ncol(k$num))) {
      g <- cumsum(c(0, k$num[-1L, c] / k$den[-1L]))
      centre <- sum(centring$w * stats::approx(z, g, centring$x)$y) / sum(centring$w)
      yhat[, c] <- g - centre + sh$shift[c]
      if (!is.null(kw)) {
        bands[[c]] <- al_kernel_bands(setup, matrix(k$ice[, , c], length(z)), kw, z, k$x, k$w,
                                      fitted[k$rows, c], k$rows, centring)
      }
    }
    c(list(x = column_values(col, z), yhat = yhat, ice = if (keep_ice) k$ice, ice_rows = k$rows),
      sh, bind_output_bands(bands))
  })
}

# The rows that centre a kernel AL profile on grid z: list(x, w, inside),
# the rows' values moved into the grid's range (for approx()), their
# weights, 0 outside it (with a warning), and `inside` (1 when all are).
kernel_centring <- function(setup, z, x, w, name) {
  lo <- z[1L]
  hi <- z[length(z)]
  inside <- x >= lo & x <= hi
  if (all(inside)) return(list(x = x, w = w, inside = 1))
  if (!any(inside & w > 0)) {
    cli::cli_abort(c(
      "No background row of {.field {name}} lies within its grid [{format(lo)}, {format(hi)}], so the AL profile has nothing to be centred on.",
      i = "Give {.arg variable_splits} that span the data."
    ), call = setup$error_call)
  }
  mp_warn("{sum(!inside)} background row{?s} outside the grid [{format(lo)}, {format(hi)}] {cli::qty(sum(!inside))}{?is/are} left out of the centring of the AL profile of {.field {name}}.", call = setup$error_call)
  list(x = pmin(pmax(x, lo), hi), w = w * inside, inside = inside)
}

# AL of a categorical variable (Apley and Zhu, 2020, section 5.2; ALEPlot's
# algorithm): the levels in an order (`levels`), each row's prediction
# difference to the next level up and from the next level down, pooled per
# pair of adjacent levels, accumulated, and centred with the levels'
# (weighted) frequencies: list(x (the levels), yhat).
accumulated_levels_request <- function(setup, j, levels, rows, fitted, na_level = FALSE,
                                       native = TRUE) {
  rows <- observed_rows(setup, j, rows, na_level)
  col <- setup$data[[j]]
  w <- at_rows(setup$weights, rows)
  K <- length(levels)
  o <- match(as.character(col[rows]), levels)
  f <- fitted[rows, , drop = FALSE]
  up <- which(o < K)
  down <- which(o > 1L)
  # Pair t joins levels t and t + 1: rows at level t moved up, rows at level
  # t + 1 moved down.
  pos <- c(up, down)
  pair <- c(o[up], o[down] - 1L)
  to <- c(o[up] + 1L, o[down] - 1L)
  sign <- rep(c(1, -1), c(length(up), length(down)))
  chunks <- row_chunks(length(pos), request_chunk_rows(setup, native))
  new_request(
    length(chunks),
    make = function(k) {
      chunk <- chunks[[k]]
      list(stack_spec(rows[pos[chunk]], j, list(column_values(col, levels[to[chunk]]))))
    },
    reduce = function(k, ys) {
      chunk <- chunks[[k]]
      list(d = place(sign[chunk] * (ys[[1L]] - f[pos[chunk], , drop = FALSE]), chunk))
    },
    init = function() list(d = matrix(0, length(pos), setup$n_outputs)),
    finish = function(acc) {
      p <- as.vector(tapply(w, factor(o, levels = seq_len(K)), sum, default = 0))
      sh <- al_shift(setup, fitted, rows)
      yhat <- matrix(0, K, setup$n_outputs)
      bands <- vector("list", setup$n_outputs)
      for (c in seq_len(setup$n_outputs)) {
        s <- interval_sums(acc$d, pair, w[pos], K - 1L, c)
        g <- c(0, cumsum(s$sum / s$wsum))
        yhat[, c] <- g - sum(g * p) / sum(p) + sh$shift[c]
        bands[[c]] <- al_levels_bands(setup, acc$d[, c], s, pos, pair, o, w, f[, c], p, rows, c)
      }
      c(list(x = levels, yhat = yhat), sh, bind_output_bands(bands))
    },
    native = native
  )
}

# The order of the levels of a categorical variable for AL profiles.
# Unordered factors, characters: ALEPlot's order, by the first coordinate of
# a classical multidimensional scaling (cmdscale) of the distances between
# the levels summed over the other columns: for a numeric column the
# Kolmogorov-Smirnov distance between the levels' distributions of it
# (compared at 100 quantiles of the column), for a categorical one the total
# variation distance between them. Ordered factors, logicals and
# `level_order = "levels"`: the levels' own order.
al_level_order <- function(setup, j, level_order, rows = seq_len(setup$n), na_level = FALSE) {
  rows <- observed_rows(setup, j, rows, na_level)
  col <- setup$data[[j]]
  lev <- if (is.factor(col)) levels(col) else sort(unique(as.character(col)))
  lev <- lev[lev %in% as.character(col[rows])]
  if (anyNA(col[rows])) lev <- c(lev, NA) # missing values as a level
  if (level_order == "levels" || is.ordered(col) || is.logical(col) || length(lev) < 3L) {
    return(lev)
  }
  w <- at_rows(setup$weights, rows)
  g <- factor(as.character(col[rows]), levels = lev, exclude = NULL)
  K <- length(lev)
  D <- matrix(0, K, K)
  for (k in setdiff(seq_along(setup$data), j)) {
    other <- setup$data[[k]][rows]
    D <- D + if (column_kind(other) == "numeric") {
      ks_distances(as.double(other), g, w)
    } else {
      tv_distances(as.character(other), g, w)
    }
  }
  lev[order(stats::cmdscale(D, k = 1)[, 1])]
}

# Kolmogorov-Smirnov distances between the groups' (weighted) distributions
# of x, evaluated at 100 type-7 quantiles of x.
ks_distances <- function(x, g, w) {
  ok <- !is.na(x)
  x <- x[ok]
  g <- g[ok]
  w <- w[ok]
  q <- weighted_quantile7(x, w, seq(0, 1, length.out = 100))
  cdf <- vapply(split(seq_along(x), g), function(i) {
    if (!length(i)) return(rep(NA_real_, length(q)))
    o <- order(x[i])
    cw <- cumsum(w[i][o])
    cw <- c(0, cw / cw[length(cw)])
    cw[findInterval(q, x[i][o]) + 1L]
  }, numeric(length(q)))
  D <- outer(seq_len(ncol(cdf)), seq_len(ncol(cdf)), Vectorize(function(a, b) max(abs(cdf[, a] - cdf[, b]))))
  D[is.na(D)] <- 0
  D
}

# Total variation distances between the groups' (weighted) distributions of
# a categorical x.
tv_distances <- function(x, g, w) {
  ok <- !is.na(x)
  tab <- tapply(w[ok], list(g[ok], factor(x[ok])), sum, default = 0)
  tab <- tab / rowSums(tab)
  D <- as.matrix(stats::dist(tab, method = "manhattan")) / 2
  D[is.na(D)] <- 0
  unname(D)
}
