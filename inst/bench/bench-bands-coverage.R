# Coverage of the sampling bands of model_profile(bands = ...): for three
# models whose population profiles are known (an additive closed form, an
# interaction of correlated variables, and a ranger forest trained once on
# a known data-generating process), draw R samples of N background rows
# from a large population, compute 95 % bands, and count how often they
# cover the population profile, pointwise.
#
# Estimands (what the bands are for: the sampling of the background rows,
# the model fixed):
# * PD at fixed grid points z: the population mean of f(x^{j=z});
# * kernel LD at the same points with a fixed bandwidth s (passed
#   explicitly, the same for every sample): the population kernel-weighted
#   mean sum_i dnorm(z - x_ij, 0, s) f(x_i^{j=z}) / sum_i dnorm(z - x_ij, 0, s);
# * interval AL: its edges are sample quantiles, so the estimand is the
#   population AL at the sample's own edges z_0 < ... < z_K: the population
#   interval means of f(x^{j=z_k}) - f(x^{j=z_{k-1}}) over the population
#   rows in each interval (z_{k-1}, z_k] (z_0 in the first; rows outside
#   [z_0, z_K] left out), accumulated, centred with the population interval
#   counts as ALEPlot does, plus the population mean prediction. Computed
#   per sample from the sample's `_x_`.
# * kernel AL (method = "kernel") on the sample's own grid (grid_points =
#   21 evenly spaced values from the sample's minimum to its maximum) with
#   the same fixed bandwidth as LD: the population kernel AL at that grid,
#   the population kernel-weighted means
#   sum_i dnorm(z_g - x_ij, 0, s) (f(x_i^{j=z_g}) - f(x_i^{j=z_{g-1}})) / sum_i dnorm(z_g - x_ij, 0, s),
#   accumulated, centred with the population mean of the accumulated curve
#   interpolated at the rows' values, plus the population mean prediction.
#   The population has rows beyond the sample's extremes, so the grid is
#   continued with its own spacing until it covers them, and the curve
#   accumulated on it (so that the sample's centring, the mean of the curve
#   over rows that are all inside its grid, estimates this one without
#   bias; leaving those rows out of the population's centring instead
#   moves the estimand with the sample's extremes: at N = 200 a bias of
#   0.4 SE for x2^2 / 2 and 89.5% coverage). This is the smoothed profile
#   the band is for (see ?profile_bands), not the unsmoothed AL: the
#   kernel's bias is not part of the band.
# * AL of a factor (the mixed model's g): the levels in the sample's own
#   order (ALEPlot's order from the sample, held fixed by the band), the
#   population means, per pair of adjacent levels, of the prediction
#   differences of the rows at either level, accumulated, centred with the
#   population level frequencies, plus the population mean prediction.
# * 2-D AL (model_profile_2d(type = "accumulated"), numeric x numeric and
#   factor x numeric pairs): the population second-order AL at the sample's
#   edges (and level order): the population cell means of the second
#   differences, ALEPlot's filling of cells without population rows (none
#   here), the accumulation, the removal of both first-order effects and
#   the centring with the population cell counts. Where the sample leaves a
#   cell empty, the estimate takes its nearest cell's value (ALEPlot's fill)
#   while the population has rows there: the points next to such cells are
#   reported apart (coverage_rows: the coverage at the other points).
# Samples are drawn with replacement from the population, so that the
# population profiles are exactly the estimands.
#
# Reported per model x type x N x band kind: pointwise coverage averaged
# over grid points and variables (Monte-Carlo SE from the per-sample
# averages), the worst grid point (binomial SE), the ratio of the mean
# standard error to the standard deviation of the estimate's error over
# samples (analytic; ~1 when the SE is right), and the mean band width.
#
#   R_LIBS=... Rscript inst/bench/bench-bands-coverage.R
#   (environment: BANDS_COV_R closed-form samples, default 400;
#    BANDS_COV_RF forest samples, default 100; BANDS_COV_RB bootstrap
#    samples, default 400; BANDS_COV_OUT results directory;
#    BANDS_COV_ONLY a regular expression of the cells to run, matched
#    against "type/bands" or "type/method/bands", e.g. "kernel|levels|2d",
#    the other cells kept from the table in BANDS_COV_OUT;
#    BANDS_COV_MODELS a regular expression of the models to run, likewise)
library(modelprofiles)
stopifnot(requireNamespace("ranger", quietly = TRUE))
env_int <- function(name, default) as.integer(Sys.getenv(name, default))
R_closed <- env_int("BANDS_COV_R", 400)
R_forest <- env_int("BANDS_COV_RF", 100)
R_boot <- env_int("BANDS_COV_RB", 400)
out_dir <- Sys.getenv("BANDS_COV_OUT", file.path("inst", "bench", "results"))
Ns <- c(200, 500, 1000)
level <- 0.95
B <- 200
threads <- 1L
t_start <- proc.time()[[3]]

# ---- Models and populations -------------------------------------------------------

set_col <- function(X, v, z) {
  X[[v]] <- rep(z, length.out = nrow(X))
  X
}
bvn <- function(n, rho) {
  a <- rnorm(n)
  cbind(a, rho * a + sqrt(1 - rho^2) * rnorm(n))
}
probs <- c(0.05, 0.25, 0.5, 0.75, 0.95)

make_model <- function(name, f, pop, variables, model = NULL, pairs = list()) {
  numeric_vars <- Filter(function(v) is.numeric(pop[[v]]), variables)
  grid <- lapply(setNames(numeric_vars, numeric_vars), function(v) {
    unname(quantile(pop[[v]], probs, type = 7))
  })
  # A fixed bandwidth per variable: Silverman's rule (bw.nrd0, the
  # package's default) at n = 500, from the population.
  bw <- vapply(numeric_vars, function(v) {
    x <- pop[[v]]
    0.9 * min(sd(x), IQR(x) / 1.34) * 500^(-1 / 5)
  }, 1)
  list(name = name, f = f, pop = pop, variables = variables, grid = grid, bw = bw, model = model,
       pairs = pairs)
}

set.seed(20)
n_pop <- 1e5
P <- data.frame(x1 = runif(n_pop, -1, 1), x2 = rnorm(n_pop), x3 = rnorm(n_pop))
additive <- make_model("additive: sin(3 x1) + x2^2 / 2 + x3",
                       function(X) sin(3 * X$x1) + X$x2^2 / 2 + X$x3, P, c("x1", "x2", "x3"))

Z <- bvn(n_pop, 0.7)
P <- data.frame(x1 = Z[, 1], x2 = Z[, 2], x3 = rnorm(n_pop))
interaction <- make_model("interaction: x1 x2 + x3, cor(x1, x2) = 0.7",
                          function(X) X$x1 * X$x2 + X$x3, P, c("x1", "x2"),
                          pairs = list(c("x1", "x2")))

# The forest: trained once on 2,000 rows of a known process, profiled over
# a population of 10,000 rows of the same process (its population AL at
# each sample's edges costs 2 x 10,000 predictions per variable and K).
dgp <- function(n) {
  Z <- bvn(n, 0.5)
  X <- data.frame(x1 = Z[, 1], x2 = Z[, 2], x3 = runif(n), x4 = runif(n), x5 = rnorm(n))
  X$y <- 2 * sin(X$x1) + X$x1 * X$x2 + 4 * (X$x3 - 0.5)^2 + X$x4 + rnorm(n, 0, 0.5)
  X
}
train <- dgp(2000)
rf <- ranger::ranger(y ~ ., data = train, num.trees = 100, num.threads = 2, seed = 1)
P <- dgp(1e4)
P$y <- NULL
f_rf <- function(X) predict(rf, X, num.threads = 2)$predictions
forest <- make_model("ranger forest, 100 trees (x1, x2 correlated)", f_rf, P, c("x1", "x2", "x3"),
                     model = rf, pairs = list(c("x1", "x2")))

# The mixed model (AL of a factor, 2-D AL with within-cell variation):
# (x1, x2) normal with correlation 0.5, x3 ~ U(0, 1), g a factor of four
# levels whose frequencies depend on x1 (so that AL differs from PD).
set.seed(21)
Z <- bvn(n_pop, 0.5)
P <- data.frame(x1 = Z[, 1], x2 = Z[, 2], x3 = runif(n_pop))
P$g <- factor(c("a", "b", "c", "d")[findInterval(P$x1 + rnorm(n_pop), c(-Inf, -0.8, 0, 0.8, Inf))],
              levels = c("a", "b", "c", "d"))
f_mixed <- function(X) {
  g <- as.character(X$g)
  X$x1 * X$x2 * (1 + X$x3) + c(a = 0, b = 1, c = 0.5, d = 2)[g] +
    c(a = 0, b = 0.5, c = 1, d = 2)[g] * X$x1 * (1 + X$x3) + X$x3
}
mixed <- make_model("mixed: x1 x2 (1 + x3) + c(g) + s(g) x1 (1 + x3) + x3", f_mixed, P, "g",
                    pairs = list(c("x1", "x2"), c("g", "x1")))

# ---- Population profiles ----------------------------------------------------------

# f at the rows of X with column v set to each of z, stacked row-major by z:
# one call of f for all of them (length(z) x nrow(X)).
ice_at <- function(f, X, v, z) {
  cols <- lapply(X, rep, times = length(z))
  cols[[v]] <- rep(z, each = nrow(X))
  matrix(f(as_frame(cols)), length(z), nrow(X), byrow = TRUE)
}
pop_pd_ld <- function(m) {
  lapply(setNames(m$variables, m$variables), function(v) {
    z <- m$grid[[v]]
    Y <- ice_at(m$f, m$pop, v, z)
    K <- outer(z, m$pop[[v]], function(a, b) dnorm(a - b, 0, m$bw[[v]]))
    list(pd = rowMeans(Y), ld = rowSums(K * Y) / rowSums(K))
  })
}
# The AL of f over the rows of X at the edges e (ALEPlot's centring with
# the interval counts, plus the mean prediction of all rows of X, `fbar`),
# in plain R: the rows inside [e_1, e_K+1], each predicted at the two edges
# of its interval in one call of f.
al_at_edges <- function(f, X, v, e, fbar) {
  x <- X[[v]]
  K <- length(e) - 1L
  inside <- which(x >= e[1L] & x <= e[K + 1L])
  k <- findInterval(x[inside], e, left.open = TRUE)
  k[k == 0L] <- 1L
  cols <- lapply(X, function(col) rep(col[inside], 2L))
  cols[[v]] <- c(e[k + 1L], e[k])
  both <- f(as_frame(cols))
  m <- length(inside)
  d <- both[seq_len(m)] - both[m + seq_len(m)]
  n_k <- tabulate(k, K)
  stopifnot(all(n_k > 0)) # (so that rowsum() has a row per interval)
  m_k <- as.vector(rowsum(d, k, reorder = TRUE)) / n_k
  g <- c(0, cumsum(m_k))
  g - sum(n_k * (g[-1L] + g[-(K + 1L)]) / 2) / sum(n_k) + fbar
}
as_frame <- function(cols) structure(cols, class = "data.frame", row.names = c(NA, -length(cols[[1L]])))

# The same for the forest, through model_profile() with the sample's edges
# as `variable_splits` and the native engine (the forest's own predictions,
# tested equal to predict(); faster than ranger's predict() on 20,000 rows
# per variable), checked against al_at_edges() once below.
al_at_edges_native <- function(m, edges) {
  p <- suppressWarnings(model_profile(rf, m$pop, variables = names(edges), type = "accumulated",
                                      variable_splits = edges, N = NULL, engine = "native",
                                      keep_ice = FALSE, threads = 2L))
  a <- p$agr_profiles
  lapply(setNames(names(edges), names(edges)), function(v) a$`_yhat_`[a$`_vname_` == v])
}

# Kernel AL of f over the rows of X at the even grid z with bandwidth s
# (see the estimands above): the grid continued with its spacing to cover
# the rows of X; `ice(ze)`: the ICE values at the grid ze
# (length(ze) x nrow(X)), by default computed with f.
kal_at_grid <- function(f, X, v, z, s, fbar, ice = function(ze) ice_at(f, X, v, ze)) {
  x <- X[[v]]
  G <- length(z)
  h <- (z[G] - z[1L]) / (G - 1L)
  below <- max(0, ceiling((z[1L] - min(x)) / h - 1e-9))
  above <- max(0, ceiling((max(x) - z[G]) / h - 1e-9))
  ze <- c(z[1L] - h * rev(seq_len(below)), z, z[G] + h * seq_len(above))
  at <- below + seq_len(G)
  Y <- ice(ze)
  Ge <- length(ze)
  K <- outer(ze[-1L], x, function(a, b) dnorm(a - b, 0, s))
  r <- rowSums(K * (Y[-1L, , drop = FALSE] - Y[-Ge, , drop = FALSE])) / rowSums(K)
  g <- cumsum(c(0, r))
  g[at] - mean(stats::approx(ze, g, x)$y) + fbar
}
# The forest's ICE values over the population at z (native engine).
native_ice <- function(m, v, z) {
  p <- model_profile(m$model, m$pop, variables = v, variable_splits = setNames(list(z), v), N = NULL,
                     engine = "native", keep_ice = TRUE, threads = 2L)
  b <- modelprofiles:::ice_blocks(p$cp_profiles)[[1L]]
  stopifnot(identical(b$ids, seq_len(nrow(m$pop))))
  matrix(modelprofiles:::ice_block_array(b)[, , 1L], length(z))
}
# AL of a factor v over the rows of X, levels in the order `ord`: Fl the
# predictions of every row at every level (nrow(X) x levels, by name).
levels_f <- function(f, X, v) {
  lev <- levels(X[[v]])
  sapply(setNames(lev, lev), function(l) f(set_col(X, v, factor(l, levels = lev))))
}
al_levels_at <- function(X, v, ord, Fl, fbar) {
  o <- match(as.character(X[[v]]), ord)
  K <- length(ord)
  m_t <- vapply(seq_len(K - 1L), function(t) {
    i <- which(o == t | o == t + 1L)
    mean(Fl[i, ord[t + 1L]] - Fl[i, ord[t]])
  }, 1)
  g <- c(0, cumsum(m_t))
  p <- tabulate(o, K)
  g - sum(g * p) / sum(p) + fbar
}
# Second-order AL of f over the rows of X for the pair pr at the first axis'
# edges e1 (or levels, in order, for a factor) and the second's edges e2,
# in plain R (see the estimands above): a (length(e1) x length(e2)) matrix.
# `cells = TRUE`: the number of rows of X in each cell of second
# differences instead.
interval_of <- function(x, e) {
  k <- findInterval(x, e, left.open = TRUE)
  k[k == 0L] <- 1L
  k
}
al2d_at <- function(f, X, pr, e1, e2, cells = FALSE) {
  categorical <- !is.numeric(X[[pr[1L]]])
  x2 <- X[[pr[2L]]]
  K2 <- length(e2) - 1L
  in2 <- x2 >= e2[1L] & x2 <= e2[K2 + 1L]
  if (!categorical) {
    x1 <- X[[pr[1L]]]
    K1 <- length(e1) - 1L
    inside <- which(in2 & x1 >= e1[1L] & x1 <= e1[K1 + 1L])
    a1 <- interval_of(x1[inside], e1)
    a2 <- interval_of(x2[inside], e2)
    cell <- a1 + K1 * (a2 - 1L)
    if (cells) return(matrix(tabulate(cell, K1 * K2), K1, K2))
    m <- length(inside)
    cols <- lapply(X, function(col) rep(col[inside], 4L))
    cols[[pr[1L]]] <- c(e1[a1], e1[a1], e1[a1 + 1L], e1[a1 + 1L])
    cols[[pr[2L]]] <- c(e2[a2], e2[a2 + 1L], e2[a2], e2[a2 + 1L])
    y <- f(as_frame(cols))
    q <- function(k) y[(k - 1L) * m + seq_len(m)]
    d <- (q(4L) - q(3L)) - (q(2L) - q(1L))
    b <- matrix(tabulate(cell, K1 * K2), K1, K2)
    center <- modelprofiles:::center_ale_2d
    z1 <- e1
  } else {
    lev <- levels(X[[pr[1L]]])
    o_all <- match(as.character(X[[pr[1L]]]), e1)
    inside <- which(in2 & !is.na(o_all))
    o <- o_all[inside]
    a2 <- interval_of(x2[inside], e2)
    K <- length(e1)
    K1 <- K - 1L
    b <- matrix(tabulate(o + K * (a2 - 1L), K * K2), K, K2)
    if (cells) return(b[-K, , drop = FALSE] + b[-1L, , drop = FALSE])
    # Each row at its own level, the level above and the one below, at the
    # two edges of its interval.
    at <- function(l, e) {
      cols <- lapply(X, function(col) col[inside])
      ok <- !is.na(l)
      cols[[pr[1L]]] <- factor(e1[ifelse(ok, l, o)], levels = lev)
      cols[[pr[2L]]] <- e
      f(as_frame(cols))
    }
    lo <- e2[a2]
    hi <- e2[a2 + 1L]
    own <- at(o, hi) - at(o, lo)
    upl <- ifelse(o < K, o + 1L, NA)
    dnl <- ifelse(o > 1L, o - 1L, NA)
    up <- at(upl, hi) - at(upl, lo)
    dn <- at(dnl, hi) - at(dnl, lo)
    u <- which(o < K)
    w <- which(o > 1L)
    d <- c(up[u] - own[u], own[w] - dn[w])
    cell <- c(o[u], o[w] - 1L) + K1 * (c(a2[u], a2[w]) - 1L)
    center <- modelprofiles:::center_ale_2d_levels
    z1 <- NULL
  }
  D <- matrix(NA_real_, K1, K2)
  s <- rowsum(d, cell)
  n_c <- tabulate(cell, K1 * K2)
  D[as.integer(rownames(s))] <- s[, 1L] / n_c[as.integer(rownames(s))]
  D <- modelprofiles:::fill_empty_cells(D, z1, e2)
  center(D, b)
}

# ---- One sample -------------------------------------------------------------------

# The samples' profiles: of the closed forms through their predict
# function; of the forest, of the ranger model itself (engine "auto": its
# compiled trees for PD and LD, predict() for AL at these sizes).
profile_args <- function(m, S, type, bands, seed) {
  args <- list(x = "model", data = S, predict_function = function(model, newdata) m$f(newdata),
               variables = m$variables, type = type, N = NULL,
               bands = profile_bands(bands, level = level, B = B), seed = seed, keep_ice = FALSE,
               threads = threads)
  if (!is.null(m$model)) {
    args$x <- m$model
    args$predict_function <- NULL
  }
  if (type != "accumulated") args$variable_splits <- m$grid
  if (type == "conditional") args$bandwidth <- m$bw
  args
}
kernel_grid_points <- 21L
# One profile of one sample, as rows: variable, point, estimate, truth,
# lower, upper, se, filled (2-D AL: next to a cell the sample leaves
# empty).
one_profile <- function(m, S, cell, seed, truth) {
  type <- cell$type
  if (type == "accumulated_2d") return(one_profile_2d(m, S, cell, seed))
  args <- profile_args(m, S, type, cell$bands, seed)
  if (!is.null(cell$intervals)) args$intervals <- cell$intervals
  kernel <- identical(cell$method, "kernel")
  if (kernel) {
    args$method <- "kernel"
    args$grid_points <- kernel_grid_points
    args$bandwidth <- m$bw[m$variables]
  }
  p <- do.call(model_profile, args)
  a <- p$agr_profiles
  rows <- lapply(setNames(m$variables, m$variables), function(v) a[a$`_vname_` == v, , drop = FALSE])
  tr <- if (type != "accumulated") {
    lapply(truth[m$variables], `[[`, if (type == "partial") "pd" else "ld")
  } else if (kernel) {
    lapply(rows, function(r) {
      v <- r$`_vname_`[1L]
      z <- as.numeric(r$`_x_`)
      if (!is.null(m$model)) {
        kal_at_grid(m$f, m$pop, v, z, m$bw[[v]], truth$fbar, ice = function(ze) native_ice(m, v, ze))
      } else {
        kal_at_grid(m$f, m$pop, v, z, m$bw[[v]], truth$fbar)
      }
    })
  } else if (identical(cell$method, "levels")) {
    lapply(rows, function(r) al_levels_at(m$pop, r$`_vname_`[1L], as.character(r$`_x_`), truth$Fl, truth$fbar))
  } else if (!is.null(m$model)) {
    al_at_edges_native(m, lapply(rows, function(r) as.numeric(r$`_x_`)))
  } else {
    lapply(rows, function(r) al_at_edges(m$f, m$pop, r$`_vname_`[1L], as.numeric(r$`_x_`), truth$fbar))
  }
  out <- lapply(m$variables, function(v) {
    r <- rows[[v]]
    stopifnot(length(tr[[v]]) == nrow(r))
    data.frame(variable = v, point = seq_len(nrow(r)), estimate = r$`_yhat_`, truth = tr[[v]],
               lower = r$`_lower_`, upper = r$`_upper_`,
               se = if (is.null(r$`_se_`)) NA_real_ else r$`_se_`, filled = FALSE)
  })
  do.call(rbind, out)
}

# The same for the pairs of a 2-D AL; `variable` is "v1:v2".
one_profile_2d <- function(m, S, cell, seed) {
  args <- list(x = "model", data = S, predict_function = function(model, newdata) m$f(newdata),
               variables = m$pairs, type = "accumulated", intervals = cell$intervals, N = NULL,
               bands = profile_bands(cell$bands, level = level, B = B), seed = seed, threads = threads)
  if (!is.null(m$model)) {
    args$x <- m$model
    args$predict_function <- NULL
  }
  p <- do.call(model_profile_2d, args)
  a <- p$agr_profiles
  out <- lapply(m$pairs, function(pr) {
    r <- a[a$`_vname_` == pr[1L] & a$`_vname2_` == pr[2L], , drop = FALSE]
    # (The edges from $grids: with a factor pair, `_x_` is character, and
    # numbers read back from it lose their last bits.)
    e1 <- p$grids[[pr[1L]]]
    e2 <- p$grids[[pr[2L]]]
    tr <- as.vector(al2d_at(m$f, m$pop, pr, e1, e2))
    stopifnot(length(tr) == nrow(r))
    # Points next to a cell of second differences without sample rows.
    n_c <- al2d_at(m$f, S, pr, e1, e2, cells = TRUE)
    K1 <- nrow(n_c)
    K2 <- ncol(n_c)
    filled <- outer(seq_len(K1 + 1L), seq_len(K2 + 1L), Vectorize(function(i, j) {
      any(n_c[max(1L, i - 1L):min(K1, i), max(1L, j - 1L):min(K2, j)] == 0)
    }))
    data.frame(variable = paste(pr, collapse = ":"), point = seq_len(nrow(r)), estimate = r$`_yhat_`,
               truth = tr, lower = r$`_lower_`, upper = r$`_upper_`,
               se = if (is.null(r$`_se_`)) NA_real_ else r$`_se_`, filled = as.vector(filled))
  })
  do.call(rbind, out)
}

# The population AL code reproduces the package's AL when the population is
# the sample itself (so the estimand is the estimator's own population
# version).
check_al_estimand <- function(m) {
  set.seed(1)
  S <- m$pop[sample.int(nrow(m$pop), 300, replace = TRUE), , drop = FALSE]
  fbar <- mean(m$f(S))
  # 2-D AL (numeric and factor first axes).
  if (length(m$pairs)) {
    p2 <- model_profile_2d("model", S, predict_function = function(model, newdata) m$f(newdata),
                           variables = m$pairs, type = "accumulated", intervals = 5, N = NULL)
    for (pr in m$pairs) {
      a <- p2$agr_profiles[p2$agr_profiles$`_vname_` == pr[1L] & p2$agr_profiles$`_vname2_` == pr[2L], ]
      ref <- al2d_at(m$f, S, pr, p2$grids[[pr[1L]]], p2$grids[[pr[2L]]])
      stopifnot(isTRUE(all.equal(a$`_yhat_`, as.vector(ref), tolerance = 1e-10)))
    }
  }
  # AL of a factor.
  fac <- Filter(function(v) is.factor(S[[v]]), m$variables)
  if (length(fac)) {
    p <- do.call(model_profile, profile_args(m, S, "accumulated", "none", NULL))
    for (v in fac) {
      a <- p$agr_profiles[p$agr_profiles$`_vname_` == v, ]
      ref <- al_levels_at(S, v, as.character(a$`_x_`), levels_f(m$f, S, v), fbar)
      stopifnot(isTRUE(all.equal(a$`_yhat_`, ref, tolerance = 1e-10)))
    }
    return(invisible())
  }
  # Kernel AL (the sample's grid; the forest's ICE values through the
  # native engine equal predict()'s).
  p <- do.call(model_profile, c(profile_args(m, S, "accumulated", "none", NULL),
                                list(method = "kernel", grid_points = kernel_grid_points,
                                     bandwidth = m$bw[m$variables])))
  for (v in m$variables) {
    a <- p$agr_profiles[p$agr_profiles$`_vname_` == v, ]
    z <- as.numeric(a$`_x_`)
    ref <- kal_at_grid(m$f, S, v, z, m$bw[[v]], fbar)
    stopifnot(isTRUE(all.equal(a$`_yhat_`, ref, tolerance = 1e-10)))
  }
  if (!is.null(m$model)) {
    Y <- native_ice(m, m$variables[1L], m$grid[[1L]])
    stopifnot(isTRUE(all.equal(Y, ice_at(m$f, m$pop, m$variables[1L], m$grid[[1L]]), tolerance = 1e-12)))
  }
  p <- do.call(model_profile, c(profile_args(m, S, "accumulated", "none", NULL), intervals = 10))
  for (v in m$variables) {
    a <- p$agr_profiles[p$agr_profiles$`_vname_` == v, ]
    ref <- al_at_edges(m$f, S, v, as.numeric(a$`_x_`), fbar)
    stopifnot(isTRUE(all.equal(a$`_yhat_`, ref, tolerance = 1e-10)))
  }
  # The forest's population AL through model_profile() equals the plain-R
  # one at the same edges.
  if (!is.null(m$model)) {
    edges <- lapply(setNames(m$variables, m$variables), function(v) {
      as.numeric(p$agr_profiles$`_x_`[p$agr_profiles$`_vname_` == v])
    })
    fast <- al_at_edges_native(m, edges)
    fbar <- mean(m$f(m$pop))
    for (v in m$variables) {
      ref <- al_at_edges(m$f, m$pop, v, edges[[v]], fbar)
      stopifnot(isTRUE(all.equal(fast[[v]], ref, tolerance = 1e-10)))
    }
  }
}

# ---- The runs ---------------------------------------------------------------------

# The cells: type (with AL's intervals) x band kind, per model and N.
cells <- function(model_name, N) {
  out <- all_cells(model_name, N)
  # BANDS_COV_ONLY = "accumulated/analytic" (say): only those cells are run;
  # the others are kept from the table in out_dir.
  only <- Sys.getenv("BANDS_COV_ONLY", "")
  if (nzchar(only)) out <- Filter(function(c) grepl(only, cell_label(c)), out)
  out
}
cell_label <- function(c) paste(c(c$type, c$method, c$bands), collapse = "/")

all_cells <- function(model_name, N) {
  if (model_name == "mixed") {
    out <- list(
      list(type = "accumulated", method = "levels", intervals = NULL, bands = "analytic"),
      list(type = "accumulated_2d", intervals = 5L, bands = "analytic"),
      list(type = "accumulated_2d", intervals = 10L, bands = "analytic")
    )
    if (N <= 500) {
      out <- c(out, list(
        list(type = "accumulated", method = "levels", intervals = NULL, bands = "bootstrap"),
        list(type = "accumulated_2d", intervals = 5L, bands = "bootstrap")
      ))
    }
    return(out)
  }
  out <- list(
    list(type = "partial", intervals = NULL, bands = "analytic"),
    list(type = "conditional", intervals = NULL, bands = "analytic"),
    list(type = "accumulated", intervals = 10L, bands = "analytic"),
    list(type = "accumulated", intervals = 40L, bands = "analytic"),
    list(type = "accumulated", method = "kernel", intervals = NULL, bands = "analytic")
  )
  if (length(models[[model_name]]$pairs)) {
    out <- c(out, list(
      list(type = "accumulated_2d", intervals = 5L, bands = "analytic"),
      list(type = "accumulated_2d", intervals = 10L, bands = "analytic")
    ))
  }
  if (model_name == "interaction" && N <= 500) {
    out <- c(out, list(
      list(type = "partial", intervals = NULL, bands = "bootstrap"),
      list(type = "conditional", intervals = NULL, bands = "bootstrap"),
      list(type = "accumulated", intervals = 10L, bands = "bootstrap"),
      list(type = "accumulated", intervals = 40L, bands = "bootstrap")
    ))
  }
  out
}

models <- list(additive = additive, interaction = interaction, forest = forest, mixed = mixed)
run_models <- names(models)
if (nzchar(Sys.getenv("BANDS_COV_MODELS", ""))) run_models <- grep(Sys.getenv("BANDS_COV_MODELS"), run_models, value = TRUE)
raw <- list()
for (mn in run_models) {
  m <- models[[mn]]
  if (!length(unlist(lapply(Ns, function(N) cells(mn, N)), recursive = FALSE))) next
  check_al_estimand(m)
  t0 <- proc.time()[[3]]
  types <- unique(unlist(lapply(Ns, function(N) vapply(cells(mn, N), `[[`, "", "type"))))
  truth <- if (any(types %in% c("partial", "conditional"))) pop_pd_ld(m) else list()
  truth$fbar <- mean(m$f(m$pop))
  for (v in Filter(function(v) is.factor(m$pop[[v]]), m$variables)) truth$Fl <- levels_f(m$f, m$pop, v)
  cat(sprintf("%s: population profiles in %.1f s\n", mn, proc.time()[[3]] - t0))
  for (N in Ns) {
    cl <- cells(mn, N)
    if (!length(cl)) next
    R_a <- if (mn == "forest") R_forest else R_closed
    t0 <- proc.time()[[3]]
    set.seed(1000 * match(mn, names(models)) + N)
    draws <- lapply(seq_len(R_a), function(r) sample.int(nrow(m$pop), N, replace = TRUE))
    for (r in seq_len(R_a)) {
      S <- m$pop[draws[[r]], , drop = FALSE]
      for (c in cl) {
        if (c$bands == "bootstrap" && r > R_boot) next
        d <- one_profile(m, S, c, seed = r, truth)
        d$model <- mn
        d$N <- N
        d$type <- c$type
        d$method <- if (is.null(c$method)) NA_character_ else c$method
        d$intervals <- if (is.null(c$intervals)) NA_integer_ else c$intervals
        d$bands <- c$bands
        d$sample <- r
        raw[[length(raw) + 1L]] <- d
      }
    }
    cat(sprintf("%s, N = %d: %d samples in %.1f s\n", mn, N, R_a, proc.time()[[3]] - t0))
    saveRDS(raw, file.path(tempdir(), "bench-bands-coverage-raw-partial.rds"))
  }
}
# BANDS_COV_RAW: the per-sample rows saved by runs stopped early (their
# bench-bands-coverage-raw-partial.rds, comma-separated), summarised as if
# run here (with BANDS_COV_MODELS matching no model).
raw_files <- strsplit(Sys.getenv("BANDS_COV_RAW", ""), ",", fixed = TRUE)[[1L]]
for (f in raw_files) raw <- c(raw, readRDS(f))
raw <- do.call(rbind, raw)
if (!is.null(raw)) raw$covered <- raw$lower <= raw$truth & raw$truth <= raw$upper

# ---- The table --------------------------------------------------------------------

summarise_cell <- function(d) {
  per_sample <- tapply(d$covered, d$sample, mean, na.rm = TRUE)
  # The points not next to a cell the sample leaves empty (2-D AL).
  rows_only <- if (any(d$filled)) {
    ps <- tapply(ifelse(d$filled, NA, d$covered), d$sample, mean, na.rm = TRUE)
    ps <- ps[is.finite(ps)]
    c(mean(ps), sd(ps) / sqrt(length(ps)))
  } else c(NA_real_, NA_real_)
  by_point <- split(d, paste(d$variable, d$point, sep = "@"))
  pc <- vapply(by_point, function(b) mean(b$covered, na.rm = TRUE), 1)
  ratio <- vapply(by_point, function(b) mean(b$se) / sd(b$estimate - b$truth), 1)
  worst <- names(which.min(pc))
  n_worst <- sum(!is.na(by_point[[worst]]$covered))
  data.frame(
    model = d$model[1L], type = d$type[1L],
    intervals = d$intervals[1L], N = d$N[1L], bands = d$bands[1L],
    R = length(per_sample), points = length(pc),
    coverage = mean(per_sample), mc_se = sd(per_sample) / sqrt(length(per_sample)),
    worst = min(pc), worst_se = sqrt(min(pc) * (1 - min(pc)) / n_worst), worst_at = worst,
    se_ratio = if (all(is.na(d$se))) NA_real_ else median(ratio),
    width = mean(d$upper - d$lower, na.rm = TRUE),
    na_bands = mean(is.na(d$covered)),
    method = d$method[1L], filled = mean(d$filled),
    coverage_rows = rows_only[1L], mc_se_rows = rows_only[2L]
  )
}
label_types <- function(tab) {
tab$type <- ifelse(tab$type == "accumulated_2d", sprintf("AL 2-D, K = %d", tab$intervals),
            ifelse(tab$type == "accumulated" & tab$method %in% "kernel", sprintf("AL, kernel, G = %d", kernel_grid_points),
            ifelse(tab$type == "accumulated" & tab$method %in% "levels", "AL, factor",
            ifelse(tab$type == "accumulated", sprintf("AL, K = %d", tab$intervals),
                   ifelse(tab$type == "partial", "PD", "LD, kernel")))))
tab$intervals <- NULL
tab$method <- NULL
tab
}
tab <- if (!is.null(raw)) {
  key <- with(raw, paste(model, type, method, intervals, bands, N))
  label_types(do.call(rbind, lapply(split(raw, factor(key, unique(key))), summarise_cell)))
}
rownames(tab) <- NULL
partial_run <- nzchar(Sys.getenv("BANDS_COV_ONLY", "")) || nzchar(Sys.getenv("BANDS_COV_MODELS", ""))
# BANDS_COV_ADD: results files (comma-separated) of runs elsewhere, whose
# rows replace the matching ones (runs of several processes at once).
add_files <- strsplit(Sys.getenv("BANDS_COV_ADD", ""), ",", fixed = TRUE)[[1L]]
for (f in rev(add_files)) {
  more <- readRDS(f)$table
  tab <- if (is.null(tab)) more else rbind(more[!paste(more$model, more$type, more$N, more$bands) %in%
                                                  paste(tab$model, tab$type, tab$N, tab$bands), names(tab)], tab)
}
if (partial_run && file.exists(file.path(out_dir, "bench-bands-coverage.rds"))) {
  prev <- readRDS(file.path(out_dir, "bench-bands-coverage.rds"))$table
  for (col in setdiff(names(tab), names(prev))) prev[[col]] <- if (col == "filled") 0 else NA_real_
  key_of <- function(t) paste(t$model, t$type, t$N, t$bands)
  tab <- rbind(prev[!key_of(prev) %in% key_of(tab), names(tab)], tab)
  tab <- tab[order(match(tab$model, names(models)), tab$N, tab$bands != "analytic",
                   match(substr(tab$type, 1, 2), c("PD", "LD", "AL")), tab$type), ]
  rownames(tab) <- NULL
}

fmt <- data.frame(
  model = tab$model, type = tab$type, N = tab$N, bands = tab$bands, R = tab$R,
  coverage = sprintf("%.1f%% (%.1f)", 100 * tab$coverage, 100 * tab$mc_se),
  worst = sprintf("%.1f%% (%.1f) at %s", 100 * tab$worst, 100 * tab$worst_se, tab$worst_at),
  se_ratio = ifelse(is.na(tab$se_ratio), "", sprintf("%.2f", tab$se_ratio)),
  width = signif(tab$width, 3),
  filled = ifelse(tab$filled > 0, sprintf("%.1f%%", 100 * tab$filled), ""),
  coverage_rows = ifelse(is.na(tab$coverage_rows), "", sprintf("%.1f%% (%.1f)", 100 * tab$coverage_rows, 100 * tab$mc_se_rows))
)
elapsed <- proc.time()[[3]] - t_start
header <- c(
  "Coverage of 95 % sampling bands, pointwise (inst/bench/bench-bands-coverage.R)",
  sprintf("%s; R %s; modelprofiles %s; %d thread(s); %.0f s in all%s.",
          format(Sys.Date()), getRversion(), utils::packageVersion("modelprofiles"), threads, elapsed,
          if (partial_run) paste0(" (this run: ", Sys.getenv("BANDS_COV_ONLY"), " ", Sys.getenv("BANDS_COV_MODELS"), " only; the other cells from the run before)") else ""),
  "Models: additive = sin(3 x1) + x2^2/2 + x3, x1 ~ U(-1, 1), x2, x3 ~ N(0, 1), population 1e5 rows;",
  "  interaction = x1 x2 + x3, (x1, x2) normal with correlation 0.7, population 1e5 rows;",
  "  forest = ranger, 100 trees, fitted once on 2,000 rows of y = 2 sin(x1) + x1 x2 + 4 (x3 - 0.5)^2 + x4 + e,",
  "  (x1, x2) normal with correlation 0.5, x3, x4 ~ U(0, 1), x5 ~ N(0, 1), e ~ N(0, 0.5^2); population 1e4 rows;",
  "  mixed = x1 x2 (1 + x3) + c(g) + s(g) x1 (1 + x3) + x3, c = 0, 1, 0.5, 2 and s = 0, 0.5, 1, 2 for g = a, b, c, d,",
  "  (x1, x2) normal with correlation 0.5, x3 ~ U(0, 1), g = a, b, c, d by cuts -0.8, 0, 0.8 of x1 + N(0, 1);",
  "  population 1e5 rows. Its cells: AL of the factor g, 2-D AL of (x1, x2) and of (g, x1).",
  "Grid points (PD, LD): population quantiles 5, 25, 50, 75, 95 %; LD bandwidth fixed per variable (bw.nrd0 at n = 500).",
  "AL: the estimand is the population AL at each sample's own edges (intervals = K; the default K is 40).",
  sprintf("AL, kernel: method = \"kernel\", the sample's own grid of G = %d points from its minimum to its maximum,", kernel_grid_points),
  "  the LD bandwidth; the estimand is the population kernel AL at that grid with that bandwidth (the smoothed",
  "  profile, not the unsmoothed AL: the kernel's bias is not in the band). AL, factor: the estimand at the sample's",
  "  own level order. AL 2-D: model_profile_2d(type = \"accumulated\", intervals = K), the pure interaction surface",
  "  ((K + 1)^2 points per pair; with a factor, levels x (K + 1)); the estimand at the sample's edges and level order.",
  sprintf("Bootstrap: B = %d, percentile bands.", B),
  "coverage: mean over samples of the share of points covered (Monte-Carlo SE); worst: the worst point",
  "  (variable@point index; binomial SE); se_ratio: median over points of mean(SE) / sd(estimate - estimand);",
  "  width: mean band width. 2-D AL only: filled = share of points next to a cell of second differences that the",
  "  sample leaves empty (its value ALEPlot's nearest-cell fill, an extrapolation: the population has rows there);",
  "  coverage_rows = the coverage at the other points (Monte-Carlo SE).",
  ""
)
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
txt <- file.path(out_dir, "bench-bands-coverage.txt")
options(width = 200)
# Notes on the cells of issue 32, written from the run of 2026-12-03 (kept with the
# table; rewrite them with a new run of those cells).
notes <- c(
  "",
  "Notes on the cells added for issue 32 (kernel AL, AL of a factor, 2-D AL), 2026-12-03:",
  "* Samples: 200 per N for the mixed model, 100 for the others (the machine was shared, load 6-12 on 2 cores);",
  "  additive kernel AL at N = 1000, interaction kernel AL and 2-D AL at N = 1000 and the mixed model at N = 1000",
  "  were not completed (lost to a crash at the end of those runs) and are missing from the table.",
  "* Kernel AL is measured against the smoothed population profile (the population kernel AL at the sample's grid,",
  "  the same bandwidth), not the unsmoothed AL: the kernel's bias is not what the band is for. Its coverage is",
  "  within 2 Monte-Carlo SE of 95% in every cell (93.0% (1.4) to 96.0% (1.1)); the worst points are mostly the grid's ends",
  "  (x@1, x@21: the sample's extremes, where few rows carry kernel weight), 81-94%.",
  "  (With the population rows beyond the sample's extremes left out of the estimand's centring, additive x2 at",
  "  N = 200 gave 89.5% with a bias of -0.4 SE: the estimand then moves with the sample's extremes. The same",
  "  effect, -0.14 SE, is in the interval-AL estimand of the cells above at N = 200, x2, K = 10; counting those",
  "  rows in the end intervals removes it (95.3% -> 96.7% over 150 samples).)",
  "* AL of a factor: 94.5% (1.3) at N = 200 and 92.6% (1.7) at N = 500, within 2 SE; the bootstrap gives the same.",
  "* 2-D AL: before the fix in R/bands_accumulated.R (each row's influence through its cell's count, which weighs",
  "  the removal of the first-order effects and the centring) the analytic bands covered 34% (x1 x2 (1 + x3)) and",
  "  0% (x1 x2: zero width), N = 500, K = 5. With it, se_ratio is 0.92-1.04 (0.78 for the forest at K = 10, N = 200)",
  "  and the analytic bands agree with the",
  "  bootstrap (mixed, K = 5: 93.2% against 92.7% at N = 200, 94.2% against 93.4% at N = 500). What is below",
  "  nominal by more than 2 SE has two causes:",
  "  - points next to a cell that the sample leaves empty (filled): the estimate there is ALEPlot's nearest-cell",
  "    fill, an extrapolation, while the population has rows in the cell; the band, conditional on the fill, does",
  "    not cover it (corner points of the correlated pairs, as low as 1%). coverage_rows leaves them out.",
  "  - at the other points, 92-96% (88% for the forest at K = 10, N = 200) with se_ratio 0.94-0.97 at small",
  "    cells (K = 5 at N = 200: about 8 rows a",
  "    cell; K = 10: 2): the variance of a cell's mean gets the sample's factor n / (n - 1), not the cell's",
  "    n_c / (n_c - 1) that interval AL gives each interval; that factor (1.14 at 8 rows) would likely close most",
  "    of it (not yet tried).",
  "    K = 10 at N = 200 (forest: 88.3% at the cells with rows, se_ratio 0.78) is too many cells for the rows."
)
writeLines(c(header, capture.output(print(fmt, right = FALSE, row.names = FALSE)), notes), txt)
saveRDS(list(table = tab, date = Sys.Date(), level = level, B = B, seconds = elapsed),
        file.path(out_dir, "bench-bands-coverage.rds"))
saveRDS(raw, file.path(tempdir(), "bench-bands-coverage-raw.rds"))
cat(readLines(txt), sep = "\n")
