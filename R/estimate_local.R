# Local dependence: eq. (18.5) with Gaussian kernel weights (method
# "kernel"), eq. (18.4) with Apley's intervals (method "interval"), and
# indicator weights for categorical variables.

# The rows among `rows` usable for neighbourhoods of column j: those where
# it is observed, or all of them for a categorical variable whose missing
# values are a level.
observed_rows <- function(setup, j, rows, na_level = FALSE) {
  col <- setup$data[[j]]
  if (!anyNA(col) || (na_level && column_kind(col) == "categorical")) return(rows)
  rows[!is.na(col[rows])]
}

# Kernel-weighted sums over the ICE curves of column j on `grid` (of the
# predictions, or with lag = TRUE of their grid differences) for the
# observed rows among `rows`; finish(k) gets list(num (G x outputs), den
# (G), ice, rows, x, w, dmin, kw (), bands (LD's)), kw() the G x m kernel
# weights times the rows' weights.
kernel_request <- function(setup, j, grid, rows, bandwidth, lag, keep_ice, finish, native = TRUE) {
  rows <- observed_rows(setup, j, rows)
  col <- setup$data[[j]]
  x <- as.double(at_rows(col, rows))
  w <- at_rows(setup$weights, rows)
  z <- as.double(grid)
  G <- length(grid)
  C <- setup$n_outputs
  dmin <- nearest_dist(z, x)
  curve_request(
    setup, j, list(column_values(col, grid)), rows,
    reduce_block = function(pos, y) {
      num <- matrix(0, G, C)
      # LD's analytic bands: the moments in the same pass (curve_band_update()).
      fused <- !lag && setup$bands$moments
      moments <- list()
      for (c in seq_len(C)) {
        s <- if (fused) {
          kernel_sums_moments(y, z, x[pos], w[pos], dmin, bandwidth, setup$threads, c)
        } else {
          kernel_sums(y, z, x[pos], w[pos], dmin, bandwidth, lag, setup$threads, c)
        }
        num[, c] <- s$num
        if (fused) moments[[c]] <- s[c("shift", "q1", "q2", "k2")]
      }
      c(list(num = num, den = matrix(s$den, ncol = 1L)),
        if (fused) list(moment_row = unlist(moments, use.names = FALSE)))
    },
    init = function() list(num = matrix(0, G, C), den = matrix(0, G, 1L)),
    finish = function(acc) {
      kw <- function() kernel_weights(z, x, dmin, bandwidth, setup$threads) * rep(w, each = G)
      bands <- if (!lag) curve_band_finish(setup, acc, acc$num / acc$den[, 1L], acc$den[, 1L])
      finish(list(num = acc$num, den = acc$den[, 1L], ice = acc$ice, rows = rows, x = x, w = w,
                  dmin = dmin, kw = kw, bands = bands))
    },
    # (Kernel AL's bands need each row's curve; LD's are accumulated.)
    keep = keep_ice || (lag && setup$bands$per_row), native = native,
    bands = if (!lag) list(w = w, kernel = list(z = z, x = x, dmin = dmin, bandwidth = bandwidth))
  )
}

# LD by kernel: list(x, yhat, ice, ice_rows, no_support); a grid point with
# no row within kernel_support bandwidths has no support (NA).
local_kernel_request <- function(setup, j, grid, rows, bandwidth, keep_ice, native = TRUE) {
  kernel_request(setup, j, grid, rows, bandwidth, FALSE, keep_ice, native = native, finish = function(k) {
    yhat <- k$num / k$den
    # (The nearest rows weigh 1, so the denominator is positive; one that is
    # not would be NA, as documented, never NaN.)
    no_support <- k$dmin > kernel_support * bandwidth | !(k$den > 0)
    yhat[no_support, ] <- NA_real_
    c(list(x = grid, yhat = yhat, ice = k$ice, ice_rows = k$rows, no_support = no_support),
      na_where(k$bands, no_support))
  })
}

# LD by intervals: each supported grid point predicts only the rows in its
# interval: list(x, yhat, intervals, no_support).
local_interval_request <- function(setup, j, grid, rows, intervals, native = TRUE) {
  rows <- observed_rows(setup, j, rows)
  col <- setup$data[[j]]
  x <- as.double(at_rows(col, rows))
  w <- at_rows(setup$weights, rows)
  edges <- al_edges(x, intervals, w)
  K <- length(edges) - 1L
  kx <- interval_index(x, edges, setup$threads)
  kz <- interval_index(as.double(grid), edges, setup$threads)
  members <- split(seq_along(x), factor(kx, levels = seq_len(K)))
  supported <- which(!is.na(kz))
  sizes <- lengths(members)[kz[supported]]
  # Chunks of grid points, the rows of each within the chunk size.
  groups <- unname(split(seq_along(supported), cumsum_chunks(sizes, request_chunk_rows(setup, native))))
  chunk_rows_of <- function(k) {
    g <- supported[groups[[k]]]
    mem <- members[kz[g]]
    list(g = g, mem = mem, pos = unlist(mem, use.names = FALSE))
  }
  new_request(
    length(groups),
    make = function(k) {
      ck <- chunk_rows_of(k)
      list(stack_spec(rows[ck$pos], j, list(column_values(col, rep(grid[ck$g], lengths(ck$mem))))))
    },
    reduce = function(k, ys) {
      ck <- chunk_rows_of(k)
      m <- group_means(setup, ys[[1L]], w[ck$pos], c(0L, cumsum(lengths(ck$mem))), rows[ck$pos])
      c(list(yhat = place(m$yhat, ck$g)), place_bands(m$bands, ck$g))
    },
    init = function() c(list(yhat = matrix(NA_real_, length(grid), setup$n_outputs)),
                        init_bands(setup, length(grid))),
    finish = function(acc) {
      c(list(x = grid, yhat = acc$yhat, intervals = K, no_support = is.na(kz)),
        finish_bands(setup, acc))
    },
    native = native
  )
}

# LD of a categorical variable: the weighted mean prediction of the rows at
# each level (x_i^{j=z} is the row itself when x_i^j = z), from the
# predictions `fitted` at the background rows (NA where not needed).
local_levels <- function(setup, j, grid, rows, fitted, na_level = FALSE) {
  rows <- observed_rows(setup, j, rows, na_level)
  f <- fitted[rows, , drop = FALSE]
  w <- at_rows(setup$weights, rows)
  lev <- match(as.character(setup$data[[j]][rows]), as.character(grid))
  # Rows at levels outside a user's grid are not used.
  ord <- order(lev)[seq_len(sum(!is.na(lev)))]
  counts <- tabulate(lev, length(grid))
  m <- group_means(setup, f[ord, , drop = FALSE], w[ord], c(0L, cumsum(counts)), rows[ord])
  m$yhat[counts == 0, ] <- NA_real_
  c(list(x = grid, yhat = m$yhat, no_support = counts == 0),
    na_where(bind_output_bands(m$bands), counts == 0))
}

# The weighted means of each output of y (a column each) over consecutive
# groups of its rows (offsets, as group_sums()), of background rows `rows`
# with weights w, and their bands (group_bands(), per output).
group_means <- function(setup, y, w, offsets, rows) {
  yhat <- matrix(0, length(offsets) - 1L, ncol(y))
  bands <- vector("list", ncol(y))
  for (c in seq_len(ncol(y))) {
    s <- group_sums(y, w, offsets, setup$threads, c)
    yhat[, c] <- s$sum / s$wsum
    bands[[c]] <- group_bands(setup, y[, c], w, offsets, yhat[, c], rows)
  }
  list(yhat = yhat, bands = bands)
}
