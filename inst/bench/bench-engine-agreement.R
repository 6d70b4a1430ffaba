# Native (compiled trees, linear predictor) against predict(): the largest
# absolute difference per model family over PD (with ICE), kernel LD,
# interval AL, 2-D PD and 2-D AL, every class profiled (linear models: PD
# and ICE, where the linear engine applies).
#   Rscript inst/bench/bench-engine-agreement.R [results file]
suppressPackageStartupMessages(library(modelprofiles))
out <- commandArgs(TRUE)[1]
set.seed(1)
n <- 1000
X <- data.frame(a = rnorm(n), b = runif(n), c = rnorm(n), d = rnorm(n))
eta <- X$a * X$b + sin(2 * X$c) + 0.5 * X$d
y3 <- cut(eta, quantile(eta, c(0, 1 / 3, 2 / 3, 1)), labels = FALSE, include.lowest = TRUE) - 1L
y01 <- as.integer(eta > median(eta))
y01[1] <- 1L

max_diff <- function(fit, X) {
  d <- 0
  linear <- model_adapter(fit)$linear
  types <- list(list(type = "partial"), list(type = "conditional"),
                list(type = "accumulated", method = "interval"))
  for (a in if (linear) types[1] else types) {
    r <- lapply(c("native", "predict"), function(e) {
      do.call(model_profile, c(list(fit, X, N = NULL, grid_points = 21, engine = e), a))
    })
    stopifnot(r[[1]]$engine == "native", identical(r[[1]]$labels, r[[2]]$labels))
    d <- max(d, abs(r[[1]]$agr_profiles$`_yhat_` - r[[2]]$agr_profiles$`_yhat_`))
    if (!is.null(r[[1]]$cp_profiles)) d <- max(d, abs(r[[1]]$cp_profiles$`_yhat_` - r[[2]]$cp_profiles$`_yhat_`))
  }
  for (type in if (linear) character() else c("partial", "accumulated")) {
    r <- lapply(c("native", "predict"), function(e) {
      model_profile_2d(fit, X, variables = c("a", "b"), type = type, N = NULL, grid_points = 8, engine = e)
    })
    d <- max(d, abs(r[[1]]$agr_profiles$`_yhat_` - r[[2]]$agr_profiles$`_yhat_`))
  }
  d
}

fits <- list()
df <- cbind(X, y = eta)
fits[["lm"]] <- lm(y ~ a * b + c + d, df)
fits[["glm binomial"]] <- glm(I(y > 0) ~ a + b + c + d, df, family = binomial)
fits[["glm poisson"]] <- glm(rpois(n, exp(0.3 * y)) ~ a + b + c + d, df, family = poisson)
fits[["glm Gamma"]] <- glm(rgamma(n, 2, 2 / exp(0.2 * y)) ~ a + b + c + d, df, family = Gamma("log"))
if (requireNamespace("ranger", quietly = TRUE)) {
  fits[["ranger regression"]] <- ranger::ranger(x = X, y = eta, num.trees = 50, num.threads = 1, seed = 1)
  fits[["ranger probability 0/1 (first row 1)"]] <- ranger::ranger(x = X, y = y01, probability = TRUE, num.trees = 50, num.threads = 1, seed = 1)
  fits[["ranger probability 0/1/2"]] <- ranger::ranger(x = X, y = y3, probability = TRUE, num.trees = 50, num.threads = 1, seed = 1)
}
if (requireNamespace("randomForest", quietly = TRUE)) {
  fits[["randomForest regression"]] <- randomForest::randomForest(X, eta, ntree = 50)
  fits[["randomForest classification"]] <- randomForest::randomForest(X, factor(y3), ntree = 50)
}
if (requireNamespace("gbm", quietly = TRUE)) {
  fits[["gbm gaussian"]] <- gbm::gbm(y ~ ., data = df, distribution = "gaussian", n.trees = 50, interaction.depth = 3)
  fits[["gbm bernoulli"]] <- gbm::gbm(y ~ ., data = cbind(X, y = y01), distribution = "bernoulli", n.trees = 50, interaction.depth = 3)
  fits[["gbm multinomial"]] <- suppressWarnings(gbm::gbm(y ~ ., data = cbind(X, y = factor(y3)), distribution = "multinomial", n.trees = 30, interaction.depth = 3))
}
if (requireNamespace("xgboost", quietly = TRUE)) {
  M <- as.matrix(X)
  xgb <- function(label, ...) xgboost::xgb.train(params = list(max_depth = 4, nthread = 1, ...),
                                                 data = xgboost::xgb.DMatrix(M, label = label), nrounds = 50, verbose = 0)
  fits[["xgboost reg:squarederror"]] <- xgb(eta, objective = "reg:squarederror")
  fits[["xgboost binary:logistic"]] <- xgb(y01, objective = "binary:logistic")
  fits[["xgboost multi:softprob"]] <- xgb(y3, objective = "multi:softprob", num_class = 3)
}
if (requireNamespace("lightgbm", quietly = TRUE)) {
  M <- as.matrix(X)
  lgb <- function(label, ...) lightgbm::lgb.train(params = list(num_leaves = 15, verbose = -1, num_threads = 1, ...),
                                                  data = lightgbm::lgb.Dataset(M, label = label), nrounds = 50)
  fits[["lightgbm regression"]] <- lgb(eta, objective = "regression")
  fits[["lightgbm binary"]] <- lgb(y01, objective = "binary")
  fits[["lightgbm multiclass"]] <- lgb(y3, objective = "multiclass", num_class = 3)
}

rows <- lapply(names(fits), function(nm) {
  d <- tryCatch(max_diff(fits[[nm]], X), error = function(e) {
    message(nm, ": ", conditionMessage(e))
    NA_real_
  })
  data.frame(family = nm, max_abs_difference = signif(d, 3))
})
res <- do.call(rbind, rows)
print(res, row.names = FALSE)
if (!is.na(out)) {
  writeLines(c(paste("# bench-engine-agreement.R,", format(Sys.Date()), "- 1,000 rows, 4 variables, PD+ICE, LD, AL, 2-D PD, 2-D AL"),
               utils::capture.output(print(res, row.names = FALSE))), out)
}
