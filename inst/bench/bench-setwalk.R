# The native engine's set walk against the predict() path, for ranger,
# randomForest, gbm, xgboost and lightgbm, in one run, as ratios: PD without
# curves and with ICE curves kept (51 points, 8 variables), interval AL
# (K = 50, 8 variables), 2-D PD (a 20 x 20 grid, one pair, 1,000 rows) and
# the exact profile at every split value; and the set walk's cost per
# (row, node) visit. 3,000 background rows of 8 variables; every native
# call is a first call (the compiled-model cache is emptied before it, so
# compiling is included); runs interleaved, medians of `reps`. The numbers
# of both engines are checked to agree before anything is timed.
#   Rscript inst/bench/bench-setwalk.R [reps] [out.md] [families]
# (families: comma-separated, e.g. "ranger"; all installed by default.)
library(modelprofiles)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args) >= 1L) as.integer(args[1]) else 3L
out_file <- if (length(args) >= 2L) args[2] else "inst/bench/results/bench-setwalk.md"
only <- if (length(args) >= 3L) strsplit(args[3], ",")[[1]]
have <- function(p) requireNamespace(p, quietly = TRUE) && (is.null(only) || p %in% only)
ns <- asNamespace("modelprofiles")

set.seed(1)
n <- 3000
p <- 8
X <- as.data.frame(matrix(rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", 1:p))))
y <- X$x1 * X$x2 + sin(X$x4) + X$x5 * X$x6 + rnorm(n)
yb <- as.integer(y > stats::median(y))
M <- as.matrix(X)

# Each family: the model (300 trees or rounds) and the predict function of
# its predict() path (ranger's with num.threads = 1, as in the issue's bar).
models <- list()
if (have("ranger")) {
  models$ranger <- list(fit = ranger::ranger(x = X, y = y, num.trees = 300, num.threads = 2, seed = 1),
                        pf = function(m, d) predict(m, d, num.threads = 1)$predictions)
}
if (have("randomForest")) {
  models$randomForest <- list(fit = randomForest::randomForest(X, y, ntree = 300), pf = NULL)
}
if (have("gbm")) {
  models$gbm <- list(fit = gbm::gbm(y ~ ., data = cbind(X, y = y), distribution = "gaussian", n.trees = 300,
                                    interaction.depth = 4, shrinkage = 0.05, n.cores = 1), pf = NULL)
}
if (have("xgboost")) {
  models$xgboost <- list(fit = xgboost::xgb.train(params = list(objective = "binary:logistic", max_depth = 6,
                                                                eta = 0.1, nthread = 2),
                                                  data = xgboost::xgb.DMatrix(M, label = yb), nrounds = 300),
                         pf = NULL)
}
if (have("lightgbm")) {
  models$lightgbm <- list(fit = lightgbm::lgb.train(params = list(objective = "regression", num_leaves = 31,
                                                                  verbose = -1, num_threads = 2),
                                                    data = lightgbm::lgb.Dataset(M, label = y), nrounds = 300),
                          pf = NULL)
}

timed <- function(expr) {
  gc(FALSE)
  t <- proc.time()[[3]]
  force(expr)
  proc.time()[[3]] - t
}

# The calls of one family: native (first call) and predict() path.
calls <- function(m) {
  base <- list(m$fit, X, N = NULL, threads = 2)
  pd <- c(base, grid_points = 51)
  al <- c(base, type = "accumulated", intervals = 50)
  d2 <- list(m$fit, X[seq_len(1000), ], variables = c("x1", "x2"), N = NULL, grid_points = 20, threads = 2)
  pred <- function(a) c(a, engine = "predict", if (!is.null(m$pf)) list(predict_function = m$pf))
  list(
    # (Every call compiles its model: compilations live as long as the call.)
    pd_native = function() do.call(model_profile, c(pd, keep_ice = FALSE, engine = "native")),
    ice_native = function() do.call(model_profile, c(pd, keep_ice = TRUE, engine = "native")),
    splits_native = function() do.call(model_profile, c(pd, keep_ice = FALSE, engine = "native",
                                                        variable_splits_type = "splits")),
    pd_predict = function() do.call(model_profile, pred(c(pd, keep_ice = TRUE))),
    al_native = function() do.call(model_profile, c(al, engine = "native")),
    al_predict = function() do.call(model_profile, pred(al)),
    pd2_native = function() do.call(model_profile_2d, c(d2, engine = "native")),
    pd2_predict = function() do.call(model_profile_2d, pred(d2))
  )
}

# Agreement first (1e-12 relative; xgboost's float sums: 1e-6).
for (nm in names(models)) {
  cl <- calls(models[[nm]])
  tol <- if (nm == "xgboost") 1e-6 else 1e-12
  a <- cl$ice_native()
  b <- cl$pd_predict()
  s <- cl$pd_native()
  stopifnot(isTRUE(all.equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = tol)),
            isTRUE(all.equal(s$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = tol)))
  a2 <- cl$pd2_native()
  b2 <- cl$pd2_predict()
  stopifnot(isTRUE(all.equal(a2$agr_profiles$`_yhat_`, b2$agr_profiles$`_yhat_`, tolerance = tol)))
  models[[nm]]$agree <- max(abs(a$agr_profiles$`_yhat_` - b$agr_profiles$`_yhat_`)) /
    max(abs(b$agr_profiles$`_yhat_`))
}

# Timings, interleaved: each repetition runs every call of every family.
keys <- c("pd_native", "ice_native", "splits_native", "pd_predict", "al_native", "al_predict",
          "pd2_native", "pd2_predict")
times <- array(NA_real_, c(length(models), length(keys), reps), list(names(models), keys, NULL))
for (r in seq_len(reps)) {
  for (nm in names(models)) {
    cl <- calls(models[[nm]])
    for (k in keys) times[nm, k, r] <- timed(cl[[k]]())
    message(sprintf("rep %d %s: %s", r, nm, paste(sprintf("%s %.2f", keys, times[nm, , r]), collapse = ", ")))
  }
}
med <- apply(times, c(1, 2), stats::median)

# Cost per (row, node) visit of the walk alone (PD sums of the 8 variables
# at 51 points, 1 thread; the compiled model and its data matrix made once).
visit_ns <- vapply(names(models), function(nm) {
  cm <- ns$native_compile(models[[nm]]$fit)
  Xm <- ns$native_columns(cm, X)
  w <- rep(1, n)
  visits <- 0
  secs <- numeric(reps)
  for (r in seq_len(reps)) {
    t0 <- proc.time()[[3]]
    v <- 0
    for (k in seq_len(p)) {
      z <- stats::quantile(X[[k]], seq(0, 1, length.out = 51), names = FALSE)
      s <- ns$native_partial_sums(cm, Xm, seq_len(n), w, match(names(X)[k], cm$features), z, 1L)
      v <- v + attr(s, "visits")
    }
    secs[r] <- proc.time()[[3]] - t0
    visits <- v
  }
  c(visits = visits, ns = 1e9 * stats::median(secs) / visits)
}, numeric(2))

tab <- data.frame(
  model = names(models),
  `PD native (s)` = round(med[, "pd_native"], 2),
  `PD x predict` = round(med[, "pd_predict"] / med[, "pd_native"], 1),
  `ICE native (s)` = round(med[, "ice_native"], 2),
  `ICE x predict` = round(med[, "pd_predict"] / med[, "ice_native"], 1),
  `splits (s)` = round(med[, "splits_native"], 2),
  `splits / 51 points` = round(med[, "splits_native"] / med[, "pd_native"], 2),
  `predict path PD (s)` = round(med[, "pd_predict"], 1),
  `AL x predict` = round(med[, "al_predict"] / med[, "al_native"], 1),
  `2-D PD x predict` = round(med[, "pd2_predict"] / med[, "pd2_native"], 1),
  `ns per visit` = round(visit_ns["ns", ], 2),
  `visits per (row, tree, variable)` = round(visit_ns["visits", ] / (n * 300 * p), 1),
  `max rel. diff` = signif(vapply(models, `[[`, numeric(1), "agree"), 2),
  check.names = FALSE, row.names = NULL
)
load <- tryCatch(readLines("/proc/loadavg", 1L), error = function(e) NA)
lines <- c(
  "# bench-setwalk.R",
  "",
  sprintf("%s; R %s; %d repetitions interleaved, medians; load average at the end: %s.",
          format(Sys.time(), "%Y-%m-%d %H:%M"), getRversion(), reps, load),
  "3,000 background rows x 8 variables, 300 trees (rounds) per model; native calls are first calls (compiling included), 2 threads.",
  "`x predict`: the predict() path's time over the native one (ranger's predict() with num.threads = 1).",
  "ICE: the same call with `keep_ice = TRUE` (curves kept); `splits`: `variable_splits_type = \"splits\"`, every split value.",
  "AL: interval AL, K = 50, 8 variables; 2-D PD: x1 x x2 on a 20 x 20 grid over 1,000 rows.",
  "ns per visit: the walk alone (PD sums, 1 thread) over its (row, node) visits.",
  "",
  paste0("| ", paste(names(tab), collapse = " | "), " |"),
  paste0("|", paste(rep(" --- ", ncol(tab)), collapse = "|"), "|"),
  apply(tab, 1, function(r) paste0("| ", paste(r, collapse = " | "), " |"))
)
writeLines(lines, out_file)
saveRDS(list(times = times, visits = visit_ns, table = tab), sub("\\.md$", ".rds", out_file))
cat(lines, sep = "\n")
