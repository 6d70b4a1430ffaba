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
#    samples, default 400; BANDS_COV_OUT results directory)
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

make_model <- function(name, f, pop, variables, model = NULL) {
  grid <- lapply(setNames(variables, variables), function(v) {
    unname(quantile(pop[[v]], probs, type = 7))
  })
  # A fixed bandwidth per variable: Silverman's rule (bw.nrd0, the
  # package's default) at n = 500, from the population.
  bw <- vapply(variables, function(v) {
    x <- pop[[v]]
    0.9 * min(sd(x), IQR(x) / 1.34) * 500^(-1 / 5)
  }, 1)
  list(name = name, f = f, pop = pop, variables = variables, grid = grid, bw = bw, model = model)
}

set.seed(20)
n_pop <- 1e5
P <- data.frame(x1 = runif(n_pop, -1, 1), x2 = rnorm(n_pop), x3 = rnorm(n_pop))
additive <- make_model("additive: sin(3 x1) + x2^2 / 2 + x3",
                       function(X) sin(3 * X$x1) + X$x2^2 / 2 + X$x3, P, c("x1", "x2", "x3"))

Z <- bvn(n_pop, 0.7)
P <- data.frame(x1 = Z[, 1], x2 = Z[, 2], x3 = rnorm(n_pop))
interaction <- make_model("interaction: x1 x2 + x3, cor(x1, x2) = 0.7",
                          function(X) X$x1 * X$x2 + X$x3, P, c("x1", "x2"))

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
                     model = rf)

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

# ---- One sample -------------------------------------------------------------------

# The samples' profiles: of the closed forms through their predict
# function; of the forest, of the ranger model itself (engine "auto": its
# compiled trees for PD and LD, predict() for AL at these sizes).
profile_args <- function(m, S, type, bands, seed) {
  args <- list(x = "model", data = S, predict_function = function(model, newdata) m$f(newdata),
               variables = m$variables, type = type, N = NULL, bands = bands, level = level,
               B = B, seed = seed, keep_ice = FALSE, threads = threads)
  if (!is.null(m$model)) {
    args$x <- m$model
    args$predict_function <- NULL
  }
  if (type != "accumulated") args$variable_splits <- m$grid
  if (type == "conditional") args$bandwidth <- m$bw
  args
}
# One profile of one sample, as rows: variable, point, estimate, truth,
# lower, upper, se.
one_profile <- function(m, S, type, bands, seed, truth, intervals = NULL) {
  args <- profile_args(m, S, type, bands, seed)
  if (!is.null(intervals)) args$intervals <- intervals
  p <- do.call(model_profile, args)
  a <- p$agr_profiles
  rows <- lapply(setNames(m$variables, m$variables), function(v) a[a$`_vname_` == v, , drop = FALSE])
  tr <- if (type != "accumulated") {
    lapply(truth[m$variables], `[[`, if (type == "partial") "pd" else "ld")
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
               se = if (is.null(r$`_se_`)) NA_real_ else r$`_se_`)
  })
  do.call(rbind, out)
}

# The population AL code reproduces the package's AL when the population is
# the sample itself (so the estimand is the estimator's own population
# version).
check_al_estimand <- function(m) {
  set.seed(1)
  S <- m$pop[sample.int(nrow(m$pop), 300, replace = TRUE), , drop = FALSE]
  p <- do.call(model_profile, c(profile_args(m, S, "accumulated", "none", NULL), intervals = 10))
  fbar <- mean(m$f(S))
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
  if (nzchar(only)) out <- Filter(function(c) grepl(only, paste(c$type, c$bands, sep = "/")), out)
  out
}

all_cells <- function(model_name, N) {
  out <- list(
    list(type = "partial", intervals = NULL, bands = "analytic"),
    list(type = "conditional", intervals = NULL, bands = "analytic"),
    list(type = "accumulated", intervals = 10L, bands = "analytic"),
    list(type = "accumulated", intervals = 40L, bands = "analytic")
  )
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

models <- list(additive = additive, interaction = interaction, forest = forest)
raw <- list()
for (mn in names(models)) {
  m <- models[[mn]]
  check_al_estimand(m)
  t0 <- proc.time()[[3]]
  truth <- pop_pd_ld(m)
  truth$fbar <- mean(m$f(m$pop))
  cat(sprintf("%s: population profiles in %.1f s\n", mn, proc.time()[[3]] - t0))
  for (N in Ns) {
    cl <- cells(mn, N)
    R_a <- if (mn == "forest") R_forest else R_closed
    t0 <- proc.time()[[3]]
    set.seed(1000 * match(mn, names(models)) + N)
    draws <- lapply(seq_len(R_a), function(r) sample.int(nrow(m$pop), N, replace = TRUE))
    for (r in seq_len(R_a)) {
      S <- m$pop[draws[[r]], , drop = FALSE]
      for (c in cl) {
        if (c$bands == "bootstrap" && r > R_boot) next
        d <- one_profile(m, S, c$type, c$bands, seed = r, truth, c$intervals)
        d$model <- mn
        d$N <- N
        d$type <- c$type
        d$intervals <- if (is.null(c$intervals)) NA_integer_ else c$intervals
        d$bands <- c$bands
        d$sample <- r
        raw[[length(raw) + 1L]] <- d
      }
    }
    cat(sprintf("%s, N = %d: %d samples in %.1f s\n", mn, N, R_a, proc.time()[[3]] - t0))
  }
}
raw <- do.call(rbind, raw)
raw$covered <- raw$lower <= raw$truth & raw$truth <= raw$upper

# ---- The table --------------------------------------------------------------------

summarise_cell <- function(d) {
  per_sample <- tapply(d$covered, d$sample, mean, na.rm = TRUE)
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
    na_bands = mean(is.na(d$covered))
  )
}
key <- with(raw, paste(model, type, intervals, bands, N))
tab <- do.call(rbind, lapply(split(raw, factor(key, unique(key))), summarise_cell))
rownames(tab) <- NULL
tab$type <- ifelse(tab$type == "accumulated", sprintf("AL, K = %d", tab$intervals),
                   ifelse(tab$type == "partial", "PD", "LD, kernel"))
tab$intervals <- NULL
if (nzchar(Sys.getenv("BANDS_COV_ONLY", ""))) {
  prev <- readRDS(file.path(out_dir, "bench-bands-coverage.rds"))$table
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
  width = signif(tab$width, 3)
)
elapsed <- proc.time()[[3]] - t_start
header <- c(
  "Coverage of 95 % sampling bands, pointwise (inst/bench/bench-bands-coverage.R)",
  sprintf("%s; R %s; modelprofiles %s; %d thread(s); %.0f s in all%s.",
          format(Sys.Date()), getRversion(), utils::packageVersion("modelprofiles"), threads, elapsed,
          if (nzchar(Sys.getenv("BANDS_COV_ONLY", ""))) paste0(" (this run: ", Sys.getenv("BANDS_COV_ONLY"), " only; the other cells from the run before)") else ""),
  "Models: additive = sin(3 x1) + x2^2/2 + x3, x1 ~ U(-1, 1), x2, x3 ~ N(0, 1), population 1e5 rows;",
  "  interaction = x1 x2 + x3, (x1, x2) normal with correlation 0.7, population 1e5 rows;",
  "  forest = ranger, 100 trees, fitted once on 2,000 rows of y = 2 sin(x1) + x1 x2 + 4 (x3 - 0.5)^2 + x4 + e,",
  "  (x1, x2) normal with correlation 0.5, x3, x4 ~ U(0, 1), x5 ~ N(0, 1), e ~ N(0, 0.5^2); population 1e4 rows.",
  "Grid points (PD, LD): population quantiles 5, 25, 50, 75, 95 %; LD bandwidth fixed per variable (bw.nrd0 at n = 500).",
  "AL: the estimand is the population AL at each sample's own edges (intervals = K; the default K is 40).",
  sprintf("Bootstrap: B = %d, percentile bands.", B),
  "coverage: mean over samples of the share of points covered (Monte-Carlo SE); worst: the worst point",
  "  (variable@point index; binomial SE); se_ratio: median over points of mean(SE) / sd(estimate - estimand);",
  "  width: mean band width.",
  ""
)
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
txt <- file.path(out_dir, "bench-bands-coverage.txt")
options(width = 200)
writeLines(c(header, capture.output(print(fmt, right = FALSE, row.names = FALSE))), txt)
saveRDS(list(table = tab, date = Sys.Date(), level = level, B = B, seconds = elapsed),
        file.path(out_dir, "bench-bands-coverage.rds"))
saveRDS(raw, file.path(tempdir(), "bench-bands-coverage-raw.rds"))
cat(readLines(txt), sep = "\n")
