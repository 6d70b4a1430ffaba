# The native engine against the predict() path and the packages users would
# use instead, in one run, as ratios: PD at 101 points and AL with K = 50 for
# all 10 variables of a ranger forest (500 trees, fitted on 100,000 rows;
# profiles over N = 1,000 background rows), then xgboost and gbm.
# Numbers are checked to agree before anything is timed.
#   Rscript inst/bench/bench-native.R [n_fit]
library(modelprofiles)
stopifnot(requireNamespace("ranger", quietly = TRUE))
args <- commandArgs(trailingOnly = TRUE)
n_fit <- if (length(args)) as.integer(args[1]) else 100000L
have <- function(p) requireNamespace(p, quietly = TRUE)
timed <- function(expr) {
  gc()
  t <- proc.time()[[3]]
  force(expr)
  proc.time()[[3]] - t
}
set.seed(1)
p <- 10
X <- as.data.frame(matrix(rnorm(n_fit * p), n_fit, dimnames = list(NULL, paste0("x", 1:p))))
X$x2 <- X$x1 + rnorm(n_fit, sd = 0.5)
y <- X$x1 * X$x2 + sin(X$x3) + X$x4 * X$x5 + rnorm(n_fit)
N <- 1000
rows <- sample.int(n_fit, N)
bg <- X[rows, ]
out <- list()
add <- function(model, task, method, secs, ref) {
  out[[length(out) + 1L]] <<- data.frame(model = model, task = task, method = method,
                                        seconds = round(secs, 2), ratio = round(secs / ref, 2))
}

run_model <- function(name, fit, pf) {
  for (task in c("PD, 101 points", "AL, K = 50")) {
    type <- if (startsWith(task, "PD")) "partial" else "accumulated"
    args <- list(fit, bg, variables = names(X), type = type, N = NULL, grid_points = 101,
                 intervals = 50, keep_ice = FALSE, threads = 2)
    t_native <- timed(r_native <- do.call(model_profile, c(args, engine = "native")))
    t_predict <- timed(r_predict <- do.call(model_profile, c(args, engine = "predict")))
    stopifnot(isTRUE(all.equal(r_native$agr_profiles$`_yhat_`, r_predict$agr_profiles$`_yhat_`,
                               tolerance = 1e-6)))
    add(name, task, "modelprofiles, native", t_native, t_native)
    add(name, task, "modelprofiles, predict()", t_predict, t_native)
    if (type == "partial" && have("hstats")) {
      t <- timed(for (v in names(X)) hstats::partial_dep(fit, v = v, X = bg, pred_fun = pf,
                                                          grid_size = 101, n_max = N))
      add(name, task, "hstats::partial_dep", t, t_native)
    }
    if (have("DALEX")) {
      ex <- DALEX::explain(fit, data = bg, predict_function = pf, verbose = FALSE)
      dtype <- if (type == "partial") "partial" else "accumulated"
      t <- timed(suppressWarnings(DALEX::model_profile(ex, variables = names(X), N = N, type = dtype,
                                                       grid_points = 101)))
      add(name, task, "DALEX::model_profile", t, t_native)
    }
  }
}

# MODELPROFILES_BENCH_CACHE=dir keeps the fitted forest there between runs.
cache_dir <- Sys.getenv("MODELPROFILES_BENCH_CACHE")
cache_file <- file.path(cache_dir, sprintf("nbench_fit_%d.rds", n_fit))
if (nzchar(cache_dir) && file.exists(cache_file)) {
  t_fit <- NA
  rf <- readRDS(cache_file)
} else {
  t_fit <- timed(rf <- ranger::ranger(x = X, y = y, num.trees = 500, num.threads = 2, seed = 1))
  if (nzchar(cache_dir)) saveRDS(rf, cache_file)
}
run_model(sprintf("ranger, 500 trees, fitted on %s rows", format(n_fit, big.mark = ",")), rf,
          function(m, d) predict(m, d, num.threads = 2)$predictions)
if (have("xgboost")) {
  xg <- xgboost::xgboost(data = as.matrix(X), label = y, nrounds = 500, verbose = 0,
                         params = list(max_depth = 6, eta = 0.1, nthread = 2))
  run_model("xgboost, 500 rounds, depth 6", xg, function(m, d) predict(m, as.matrix(d)))
}
if (have("gbm")) {
  gb <- gbm::gbm(y ~ ., data = cbind(X[1:20000, ], y = y[1:20000]), distribution = "gaussian",
                 n.trees = 500, interaction.depth = 4, shrinkage = 0.05)
  run_model("gbm, 500 trees, depth 4", gb, function(m, d) predict(m, d, n.trees = m$n.trees))
}
res <- do.call(rbind, out)
options(width = 200)
cat(sprintf("R %s; %d background rows; 2 threads; ranger fitted in %.0f s (NA: cached); %s\n",
            getRversion(), N, t_fit, format(Sys.time())))
print(res, row.names = FALSE)
