# When does compiling a tree ensemble pay for interval AL? The measurement
# behind engine = "auto"'s rule (native_pays(), R/engine_native.R): for each
# family, AL of 3 variables (10 intervals) over n background rows through
# the native engine from a cold cache (compiling included) and through the
# model's predict(), medians of 3 runs interleaved, with the numbers checked
# to agree. The crossover (in stacked rows, 2 per row and variable) is
# where the native/predict ratio falls below 1.
#   Rscript inst/bench/bench-native-al.R [out.txt]
library(modelprofiles)
args <- commandArgs(trailingOnly = TRUE)
out_file <- if (length(args)) args[1] else "inst/bench/results/bench-native-al.txt"
have <- function(p) requireNamespace(p, quietly = TRUE)
timed <- function(expr) {
  t <- proc.time()[[3]]
  force(expr)
  proc.time()[[3]] - t
}
set.seed(2)
n <- 5000
X <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = runif(n), x4 = rexp(n), x5 = rnorm(n))
y <- sin(X$x1) + X$x2 * X$x3 + log1p(X$x4) + 0.3 * X$x5 + rnorm(n, sd = 0.3)
fits <- list()
if (have("ranger")) {
  fits$`ranger, 100 trees` <- ranger::ranger(x = X, y = y, num.trees = 100, seed = 1, num.threads = 2)
  fits$`ranger, 500 trees` <- ranger::ranger(x = X, y = y, num.trees = 500, seed = 1, num.threads = 2)
}
if (have("randomForest")) fits$`randomForest, 100 trees` <- randomForest::randomForest(X, y, ntree = 100)
if (have("gbm")) {
  fits$`gbm, 300 trees, depth 4` <- gbm::gbm(y ~ ., data = cbind(X, y = y), distribution = "gaussian",
                                             n.trees = 300, interaction.depth = 4, verbose = FALSE)
}
if (have("xgboost")) {
  fits$`xgboost, 300 rounds, depth 6` <- xgboost::xgboost(data = as.matrix(X), label = y, nrounds = 300,
                                                          max_depth = 6, verbose = 0, nthread = 2)
}
if (have("lightgbm")) {
  fits$`lightgbm, 300 rounds` <- lightgbm::lightgbm(
    data = as.matrix(X), label = y, nrounds = 300, verbose = -1,
    params = list(objective = "regression", num_threads = 2)
  )
}
vars <- c("x1", "x2", "x3")
al <- function(fit, d, engine) {
  model_profile(fit, data = d, N = NULL, variables = vars, type = "accumulated", intervals = 10,
                engine = engine)
}
rows <- list()
for (nm in names(fits)) {
  fit <- fits[[nm]]
  for (m in c(50, 200, 1000, 5000)) {
    d <- X[seq_len(m), ]
    a <- al(fit, d, "native")
    b <- al(fit, d, "predict")
    stopifnot(isTRUE(all.equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = 1e-6)))
    tn <- tp <- numeric(0)
    for (r in 1:3) {
      tn <- c(tn, timed(al(fit, d, "native")))
      tp <- c(tp, timed(al(fit, d, "predict")))
    }
    rows[[length(rows) + 1L]] <- data.frame(
      model = nm, rows = m, stacked_rows = 2 * m, native_cold_s = round(stats::median(tn), 3),
      predict_s = round(stats::median(tp), 3), ratio = round(stats::median(tn) / stats::median(tp), 2)
    )
  }
}
res <- do.call(rbind, rows)
txt <- c(
  sprintf("# bench-native-al.R, %s, %s, R %s", format(Sys.time(), "%Y-%m-%d"),
          utils::sessionInfo()$running, getRversion()),
  "# AL of 3 variables, 10 intervals: native engine from a cold cache (compiling included)",
  "# against the predict() path; medians of 3 interleaved runs; ratio = native / predict.",
  utils::capture.output(print(res, row.names = FALSE))
)
writeLines(txt)
writeLines(txt, out_file)
