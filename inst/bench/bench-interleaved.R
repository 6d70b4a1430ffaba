# Interleaved timing of modelprofiles against the floor (predict() alone on
# the same rows) and the fastest other package, in one process: the runs
# alternate (floor, modelprofiles, other, floor, ...) so that changes in the
# machine's speed during the run hit all of them alike. Medians of `reps`.
#   Rscript inst/bench/bench-interleaved.R [reps]
# Complements bench-core.R (one fresh process per method, peak memory).
library(modelprofiles)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 5L
set.seed(1)
make_data <- function(n) {
  X <- as.data.frame(matrix(rnorm(n * 8), n, dimnames = list(NULL, paste0("x", 1:8))))
  X$x2 <- X$x1 + rnorm(n, sd = 0.5)
  X$x4 <- 0.7 * X$x3 + rnorm(n, sd = 0.5)
  X$x6 <- exp(X$x6)
  X
}
response <- function(X) X$x1 + X$x2 * X$x3 + sin(X$x4) + log(X$x6) * X$x5 + rnorm(nrow(X))
G <- 51
K <- 50
stack_rows <- function(X, idx) {
  structure(lapply(X, function(col) col[idx]), names = names(X),
            class = "data.frame", row.names = .set_row_names(length(idx)))
}
timed <- function(expr) {
  gc()
  t <- proc.time()[[3]]
  force(expr)
  proc.time()[[3]] - t
}
# The floor of a PD: predict() alone on each feature's n x G rows (stacking not timed).
floor_pd <- function(fit, X, pf, grids, per_grid_point = FALSE) {
  total <- 0
  for (v in names(X)) {
    g <- grids[[v]]
    if (per_grid_point) {
      for (z in g) {
        nd <- X
        nd[[v]] <- z
        total <- total + timed(pf(fit, nd))
      }
    } else {
      nd <- stack_rows(X, rep(seq_len(nrow(X)), each = length(g)))
      nd[[v]] <- rep(g, times = nrow(X))
      total <- total + timed(pf(fit, nd))
    }
  }
  total
}
# The floor of an AL: predict() alone at the two edges of each row's interval.
floor_al <- function(fit, X, pf) {
  total <- 0
  for (v in names(X)) {
    z <- unique(c(min(X[[v]]), as.numeric(quantile(X[[v]], seq(1 / K, 1, length.out = K), type = 1))))
    k <- as.numeric(cut(X[[v]], z, include.lowest = TRUE))
    lo <- X
    hi <- X
    lo[[v]] <- z[k]
    hi[[v]] <- z[k + 1]
    total <- total + timed(pf(fit, lo)) + timed(pf(fit, hi))
  }
  total
}
edges <- function(X) lapply(X, function(x) unique(c(min(x), as.numeric(quantile(x, seq(1 / K, 1, length.out = K), type = 1)))))
run <- function(name, fns) {
  times <- matrix(NA_real_, reps, length(fns), dimnames = list(NULL, names(fns)))
  for (r in seq_len(reps)) for (m in names(fns)) times[r, m] <- fns[[m]]()
  med <- apply(times, 2, stats::median)
  cat("\n##", name, "(median of", reps, "interleaved runs, seconds)\n")
  print(data.frame(method = names(med), seconds = signif(med, 3),
                   x_floor = signif(med / med[1], 3),
                   x_modelprofiles = signif(med / med[["modelprofiles"]], 3)),
        row.names = FALSE)
  invisible(med)
}

cat("modelprofiles", format(packageVersion("modelprofiles")), "| R", format(getRversion()),
    "|", parallel::detectCores(), "cores |", format(Sys.time(), tz = "UTC"), "UTC\n")

# (a) ranger, 100 trees, 5,000 rows.
X <- make_data(5000)
rf <- ranger::ranger(x = X, y = response(X), num.trees = 100, seed = 1, num.threads = 2)
pf_rf <- function(m, d) predict(m, d, verbose = FALSE)$predictions
grids <- lapply(X, function(x) unique(quantile(x, seq(0, 1, length.out = G))))
run("ranger PD, 51 points x 8 features", list(
  floor = function() floor_pd(rf, X, pf_rf, grids),
  modelprofiles = function() timed(model_profile(rf, X, N = NULL, grid_points = G)),
  hstats = function() timed(for (v in names(X)) hstats::partial_dep(rf, v = v, X = X, grid = grids[[v]], n_max = Inf, pred_fun = pf_rf))
))
run("ranger AL, K = 50 x 8 features", list(
  floor = function() floor_al(rf, X, pf_rf),
  modelprofiles = function() timed(model_profile(rf, X, N = NULL, type = "accumulated", intervals = K)),
  effectplots = function() timed(effectplots::ale(rf, v = names(X), data = X, breaks = edges(X), ale_n = nrow(X), ale_bin_size = nrow(X), outlier_iqr = Inf, pred_fun = pf_rf))
))

# (b) lm with interactions, 100,000 rows.
X <- make_data(1e5)
d <- cbind(X, y = response(X))
fit <- lm(y ~ x1 * x2 + x3 * x4 + x5 * x6 + x7 * x8, data = d)
pf_lm <- function(m, d) predict(m, d)
grids <- lapply(X, function(x) unique(quantile(x, seq(0, 1, length.out = G))))
run("lm PD, 100,000 rows, 51 points x 8 features", list(
  floor = function() floor_pd(fit, X, pf_lm, grids),
  `floor, n rows per call` = function() floor_pd(fit, X, pf_lm, grids, per_grid_point = TRUE),
  modelprofiles = function() timed(model_profile(fit, X, N = NULL, grid_points = G, keep_ice = FALSE)),
  pdp = function() timed(for (v in names(X)) pdp::partial(fit, pred.var = v, pred.grid = stats::setNames(data.frame(grids[[v]]), v), train = X))
))
run("lm AL, 100,000 rows, K = 50 x 8 features", list(
  floor = function() floor_al(fit, X, pf_lm),
  modelprofiles = function() timed(model_profile(fit, X, N = NULL, type = "accumulated", intervals = K)),
  effectplots = function() timed(effectplots::ale(fit, v = names(X), data = X, breaks = edges(X), ale_n = nrow(X), ale_bin_size = nrow(X), outlier_iqr = Inf))
))
