# Golden snapshots: one list of calls, shared by tools/make-golden.R (which
# runs them and saves their outputs to tests/testthat/golden/<family>.rds) and
# test-golden.R (which runs them again and compares). They pin the numbers,
# messages, warnings and predict() call sizes of today's code, so that a
# refactor can show it changed none of them.
#
# A family is list(needs = packages, tolerance = , cases = list(name = case));
# a case is function(cnt) returning a result, where cnt(f) wraps a predict
# function f(model, newdata) so that the size of each of its calls is
# recorded. (A wrapped function is the user's, so it keeps the predict
# engine; calls through the native and linear engines, or the adapter's own
# predict function, are pinned by n_predictions alone.)

# ---- Data and models --------------------------------------------------------

golden_cache <- new.env(parent = emptyenv())

# Evaluate expr with the random-number stream set to `seed`, and restore the
# session's stream afterwards.
golden_with_seed <- function(seed, expr) {
  old <- if (exists(".Random.seed", globalenv(), inherits = FALSE)) get(".Random.seed", globalenv())
  on.exit(if (is.null(old)) {
    rm(".Random.seed", envir = globalenv())
  } else {
    assign(".Random.seed", old, envir = globalenv())
  })
  RNGkind("Mersenne-Twister", "Inversion", "Rejection")
  set.seed(seed)
  expr
}

golden_cached <- function(name, make) {
  if (!exists(name, envir = golden_cache, inherits = FALSE)) {
    assign(name, make(), envir = golden_cache)
  }
  get(name, envir = golden_cache, inherits = FALSE)
}

# A nonlinear model with interactions, of every column type, that accepts
# missing values (numeric ones count as 0, a missing level has its own
# effect).
golden_fun <- function(model, newdata) {
  d <- newdata
  num <- function(x) { x <- as.double(x); x[is.na(x)] <- 0; x }
  x1 <- num(d$x1); x2 <- num(d$x2); x3 <- num(d$x3); xi <- num(d$xi)
  fe <- c(a = 0, b = 1, c = -0.5)[as.character(d$f)]
  fe[is.na(fe)] <- 0.25
  ce <- ifelse(is.na(d$ch), 0.1, ifelse(d$ch == "w", x1, ifelse(d$ch == "v", 0.2, 0)))
  lg <- d$lg
  lg[is.na(lg)] <- FALSE
  unname(sin(2 * x1) + x1 * x2 + 0.4 * x3^2 + 0.3 * sqrt(xi) + fe * (1 + x2) +
           0.7 * lg + ce)
}

# Class probabilities of three classes (softmax of scores).
golden_prob <- function(model, newdata) {
  eta <- golden_fun(NULL, newdata)
  x2 <- as.double(newdata$x2)
  x2[is.na(x2)] <- 0
  s <- cbind(lo = -eta, mid = 0.5 * x2, hi = eta - 0.5)
  p <- exp(s - apply(s, 1, max))
  p / rowSums(p)
}

golden_data <- function() golden_cached("data", function() golden_with_seed(20240501, {
  n <- 240
  x1 <- stats::rnorm(n)
  X <- data.frame(
    x1 = x1,
    x2 = stats::pnorm(x1 + stats::rnorm(n, sd = 0.7)),
    x3 = stats::rnorm(n),
    xi = sample(1:15, n, replace = TRUE),
    f = factor(sample(c("a", "b", "c"), n, replace = TRUE, prob = c(0.5, 0.3, 0.2))),
    lg = sample(c(TRUE, FALSE), n, replace = TRUE),
    ch = sample(c("u", "v", "w"), n, replace = TRUE),
    stringsAsFactors = FALSE
  )
  eta <- golden_fun(NULL, X)
  y <- eta + stats::rnorm(n, sd = 0.3)
  w <- sample(0:3, n, replace = TRUE, prob = c(0.1, 0.4, 0.3, 0.2))
  Xna <- X
  Xna$x1[sample(n, 12)] <- NA
  Xna$f[sample(n, 20)] <- NA
  Xna$ch[sample(n, 15)] <- NA
  y3 <- cut(eta, stats::quantile(eta, c(0, 1 / 3, 2 / 3, 1)), include.lowest = TRUE,
            labels = c("lo", "mid", "hi"))
  list(X = X, y = y, yb = y > stats::median(y), y3 = y3, w = w,
       Xw = cbind(X, wt = w), Xna = Xna,
       Xt = X[c("x1", "x2", "x3", "xi", "f")],
       Xm = X[c("x1", "x2", "x3", "xi")],
       half = ifelse(seq_len(n) %% 2 == 0, "even", "odd"))
}))

golden_model <- function(name) golden_cached(paste0("model_", name), function() {
  d <- golden_data()
  df <- cbind(d$X, y = d$y)
  fit <- function(expr) suppressWarnings(suppressMessages(golden_with_seed(7, expr)))
  Xt <- d$Xt
  M <- as.matrix(d$Xm)
  switch(
    name,
    lm = stats::lm(y ~ x1 * x2 + x3 + xi + f + lg + ch, data = df),
    lm_poly = stats::lm(y ~ poly(x1, 2) + log(x2) + x3 + f, data = df),
    glm = stats::glm(yb ~ x1 + x2 + x3 + f + lg, data = cbind(d$X, yb = d$yb), family = stats::binomial),
    glm_pois = stats::glm(round(exp(y / 3)) ~ x1 * x3 + xi, data = df, family = stats::poisson),
    glm_f3 = stats::glm(f ~ x1 + x2 + x3, data = d$X, family = stats::binomial),
    multinom = fit(nnet::multinom(y3 ~ x1 + x2 + x3 + f + ch, data = cbind(d$X, y3 = d$y3), trace = FALSE)),
    ranger = fit(ranger::ranger(x = Xt, y = d$y, num.trees = 30, num.threads = 1, seed = 3)),
    ranger_prob = fit(ranger::ranger(x = Xt, y = d$y3, probability = TRUE, num.trees = 30,
                                     num.threads = 1, seed = 3)),
    randomForest = fit(randomForest::randomForest(x = Xt, y = d$y, ntree = 20)),
    randomForest_class = fit(randomForest::randomForest(x = Xt, y = d$y3, ntree = 20)),
    gbm = fit(gbm::gbm(y ~ ., data = cbind(Xt, y = d$y), distribution = "gaussian", n.trees = 30,
                       interaction.depth = 2, bag.fraction = 1, n.minobsinnode = 5, verbose = FALSE)),
    gbm_bern = fit(gbm::gbm(y ~ ., data = cbind(Xt, y = as.numeric(d$yb)), distribution = "bernoulli",
                            n.trees = 30, interaction.depth = 2, bag.fraction = 1,
                            n.minobsinnode = 5, verbose = FALSE)),
    xgboost = fit(xgboost::xgb.train(
      params = list(max_depth = 3, eta = 0.3, nthread = 1, objective = "reg:squarederror"),
      data = xgboost::xgb.DMatrix(M, label = d$y), nrounds = 15, verbose = 0)),
    xgboost_bin = fit(xgboost::xgb.train(
      params = list(max_depth = 3, eta = 0.3, nthread = 1, objective = "binary:logistic"),
      data = xgboost::xgb.DMatrix(M, label = as.numeric(d$yb)), nrounds = 15, verbose = 0)),
    xgboost_multi = fit(xgboost::xgb.train(
      params = list(max_depth = 3, eta = 0.3, nthread = 1, objective = "multi:softprob", num_class = 3),
      data = xgboost::xgb.DMatrix(M, label = as.integer(d$y3) - 1), nrounds = 10, verbose = 0)),
    lightgbm = fit(lightgbm::lgb.train(
      params = list(objective = "regression", num_leaves = 7, min_data_in_leaf = 5, verbose = -1,
                    num_threads = 1, deterministic = TRUE),
      data = lightgbm::lgb.Dataset(M, label = d$y), nrounds = 15)),
    lightgbm_multi = fit(lightgbm::lgb.train(
      params = list(objective = "multiclass", num_class = 3, num_leaves = 7, min_data_in_leaf = 5,
                    verbose = -1, num_threads = 1, deterministic = TRUE),
      data = lightgbm::lgb.Dataset(M, label = as.integer(d$y3) - 1), nrounds = 10)),
    stop("unknown golden model ", name)
  )
})

# ---- The calls ----------------------------------------------------------------

# The engine grid of a model family: every profile type and method through
# each engine, "auto", threads 1 and 2, 2-D profiles, the H-statistic, a
# classifier, and the adapter's predict function wrapped to count its calls.
golden_engine_cases <- function(model, data, classifier = NULL, class = NULL) {
  X <- function() data()
  fit <- function() golden_model(model)
  vars <- c("x1", "x2", "xi")
  one <- function(type, method, engine, ...) {
    force(type); force(method); force(engine); args <- list(...)
    function(cnt) do.call(model_profile, c(list(fit(), X(), variables = vars, type = type, method = method,
                                                 N = 120, seed = 1, grid_points = 7, grid = profile_grids(intervals = 6),
                                                 engine = engine), args))
  }
  cases <- list()
  for (engine in c("native", "predict")) {
    cases[[paste0("pd_", engine)]] <- one("partial", NULL, engine)
    cases[[paste0("ld_kernel_", engine)]] <- one("conditional", "kernel", engine)
    cases[[paste0("ld_interval_", engine)]] <- one("conditional", "interval", engine)
    cases[[paste0("al_interval_", engine)]] <- one("accumulated", "interval", engine)
    cases[[paste0("al_kernel_", engine)]] <- one("accumulated", "kernel", engine)
  }
  cases$pd_auto <- one("partial", NULL, "auto")
  cases$al_interval_auto <- one("accumulated", "interval", "auto")
  cases$pd_native_threads1 <- one("partial", NULL, "native", threads = 1)
  cases$pd_native_threads2 <- one("partial", NULL, "native", threads = 2)
  cases$pd_native_weights <- one("partial", NULL, "native", weights = golden_data()$w)
  cases$pd_counted <- function(cnt) {
    model_profile(fit(), X(), predict_function = cnt(default_predict_function(fit())),
                  variables = vars, N = 120, seed = 1, grid_points = 7, engine = "predict")
  }
  cases$al_counted <- function(cnt) {
    model_profile(fit(), X(), predict_function = cnt(default_predict_function(fit())),
                  variables = vars, type = "accumulated", N = 120, seed = 1, grid = profile_grids(intervals = 6))
  }
  for (engine in c("native", "predict")) {
    local({
      e <- engine
      cases[[paste0("pd2d_", e)]] <<- function(cnt) {
        model_profile_2d(fit(), X(), variables = c("x1", "x2"), N = 80, seed = 2, grid_points = 5, engine = e)
      }
      cases[[paste0("al2d_", e)]] <<- function(cnt) {
        model_profile_2d(fit(), X(), variables = c("x1", "x2"), type = "accumulated", N = 120, seed = 2,
                         grid = profile_grids(intervals = 4), engine = e)
      }
      cases[[paste0("h_", e)]] <<- function(cnt) {
        h_statistic(fit(), X(), variables = c("x1", "x2", "x3"), N = 50, seed = 3, pairs = 3, engine = e)
      }
    })
  }
  if (!is.null(classifier)) {
    clf <- function() golden_model(classifier)
    cases$class_pd_native <- function(cnt) {
      model_profile(clf(), X(), variables = c("x1", "x3"), N = 100, seed = 4, grid_points = 6, engine = "native")
    }
    cases$class_pd_predict <- function(cnt) {
      model_profile(clf(), X(), variables = c("x1", "x3"), N = 100, seed = 4, grid_points = 6, engine = "predict")
    }
    cases$class_al_native <- function(cnt) {
      model_profile(clf(), X(), variables = "x1", type = "accumulated", N = 100, seed = 4, grid = profile_grids(intervals = 5),
                    engine = "native")
    }
    cases$class_ld_auto <- function(cnt) {
      model_profile(clf(), X(), variables = "x1", type = "conditional", N = 100, seed = 4, grid_points = 6)
    }
    if (!is.null(class)) {
      cases$class_subset_native <- function(cnt) {
        model_profile(clf(), X(), variables = "x1", N = 100, seed = 4, grid_points = 6, class = class,
                      engine = "native")
      }
      cases$class_subset_counted <- function(cnt) {
        model_profile(clf(), X(), predict_function = cnt(default_predict_function(clf())), variables = "x1",
                      N = 100, seed = 4, grid_points = 6, class = class)
      }
    }
  }
  cases
}

golden_families <- function() {
  D <- golden_data
  g <- golden_fun
  mp <- function(cnt, ..., data = D()$X) {
    model_profile(NULL, data, predict_function = cnt(g), ...)
  }
  list(
    bands = list(needs = character(), tolerance = 1e-12, cases = golden_band_cases()),
    partial = list(needs = character(), cases = list(
      numeric = function(cnt) mp(cnt, variables = c("x1", "x2", "x3"), N = NULL, grid_points = 9),
      integer = function(cnt) mp(cnt, variables = "xi", N = NULL, grid_points = 6),
      integer_uniform = function(cnt) mp(cnt, variables = "xi", N = NULL, grid_points = 6, variable_splits_type = "uniform"),
      integer_distinct = function(cnt) mp(cnt, variables = "xi", N = NULL, grid_points = 6, variable_splits_type = "distinct"),
      factor = function(cnt) mp(cnt, variables = "f", N = NULL),
      logical = function(cnt) mp(cnt, variables = "lg", N = NULL),
      character = function(cnt) mp(cnt, variables = "ch", N = NULL),
      all_columns = function(cnt) mp(cnt, N = 100, seed = 1, grid_points = 5),
      uniform = function(cnt) mp(cnt, variables = c("x1", "x2"), N = NULL, grid_points = 8, variable_splits_type = "uniform"),
      distinct = function(cnt) mp(cnt, variables = c("x1", "x3"), N = NULL, grid_points = 8, variable_splits_type = "distinct"),
      many_points = function(cnt) mp(cnt, variables = "x1", N = 60, seed = 2),
      splits = function(cnt) mp(cnt, variables = c("x1", "f", "ch"), N = NULL,
                                variable_splits = list(x1 = c(-1, 0, 0.5, 2), f = c("c", "a"), ch = c("w", "u"))),
      splits_single = function(cnt) mp(cnt, variables = "x2", N = 50, seed = 3, variable_splits = list(x2 = 0.5)),
      N_seed = function(cnt) mp(cnt, variables = c("x1", "f"), N = 80, seed = 11, grid_points = 7),
      N_session = function(cnt) golden_with_seed(5, mp(cnt, variables = c("x1", "f"), N = 60, grid_points = 7)),
      threads1 = function(cnt) mp(cnt, variables = c("x1", "f", "xi"), N = NULL, grid_points = 7, threads = 1),
      threads2 = function(cnt) mp(cnt, variables = c("x1", "f", "xi"), N = NULL, grid_points = 7, threads = 2),
      small_budget = function(cnt) mp(cnt, variables = c("x1", "f"), N = NULL, grid_points = 9, memory_budget = 0.02),
      small_budget_threads2 = function(cnt) mp(cnt, variables = c("x1", "f"), N = NULL, grid_points = 9,
                                               memory_budget = 0.02, threads = 2),
      no_ice = function(cnt) mp(cnt, variables = c("x1", "ch"), N = NULL, grid_points = 7, keep_ice = FALSE),
      label = function(cnt) mp(cnt, variables = "x3", N = 40, seed = 9, grid_points = 4, label = "golden"),
      matrix_data = function(cnt) {
        M <- as.matrix(D()$Xm)
        model_profile(NULL, M, predict_function = cnt(function(m, nd) nd$x1 * nd$x2 + nd$xi / 4),
                      variables = c("x1", "xi"), N = NULL, grid_points = 6)
      },
      one_argument = function(cnt) {
        f <- cnt(g)
        model_profile(NULL, D()$X, predict_function = function(newdata) f(NULL, newdata),
                      variables = "x2", N = 70, seed = 4, grid_points = 5)
      },
      lm_auto = function(cnt) model_profile(golden_model("lm"), D()$X, N = NULL, grid_points = 7),
      lm_predict = function(cnt) model_profile(golden_model("lm"), D()$X, N = NULL, grid_points = 7, engine = "predict"),
      lm_counted = function(cnt) model_profile(golden_model("lm"), D()$X, N = NULL, grid_points = 7,
                                               predict_function = cnt(default_predict_function(golden_model("lm")))),
      lm_poly = function(cnt) model_profile(golden_model("lm_poly"), D()$X, variables = c("x1", "x2", "x3", "f"),
                                            N = NULL, grid_points = 7),
      glm_pois_native = function(cnt) model_profile(golden_model("glm_pois"), D()$X, variables = c("x1", "x3", "xi"),
                                                    N = 150, seed = 2, grid_points = 7, engine = "native")
    )),
    conditional = list(needs = character(), cases = list(
      kernel_numeric = function(cnt) mp(cnt, variables = c("x1", "x2", "x3"), type = "conditional", N = NULL, grid_points = 9),
      kernel_bw = function(cnt) mp(cnt, variables = c("x1", "x2"), type = "conditional", N = NULL, grid_points = 9, bandwidth = 0.3),
      kernel_bw_named = function(cnt) mp(cnt, variables = c("x1", "x2"), type = "conditional", N = 100, seed = 1,
                                         grid_points = 15, variable_splits_type = "uniform", bandwidth = c(x1 = 0.04)),
      kernel_integer = function(cnt) mp(cnt, variables = "xi", type = "conditional", N = NULL, grid_points = 6),
      factor = function(cnt) mp(cnt, variables = "f", type = "conditional", N = NULL),
      logical = function(cnt) mp(cnt, variables = "lg", type = "conditional", N = NULL),
      character = function(cnt) mp(cnt, variables = "ch", type = "conditional", N = NULL),
      kernel_uniform = function(cnt) mp(cnt, variables = "x1", type = "conditional", N = NULL, grid_points = 8,
                                        variable_splits_type = "uniform"),
      kernel_distinct = function(cnt) mp(cnt, variables = "x3", type = "conditional", N = 90, seed = 5, grid_points = 8,
                                         variable_splits_type = "distinct"),
      kernel_splits = function(cnt) mp(cnt, variables = c("x1", "f"), type = "conditional", N = NULL,
                                       variable_splits = list(x1 = c(-5, -1, 0, 1, 5), f = c("b", "c"))),
      interval = function(cnt) mp(cnt, variables = c("x1", "x2"), type = "conditional", method = "interval",
                                  N = NULL, grid_points = 9, grid = profile_grids(intervals = 8)),
      interval_integer = function(cnt) mp(cnt, variables = "xi", type = "conditional", method = "interval",
                                          N = NULL, grid_points = 6, grid = profile_grids(intervals = 5)),
      interval_splits = function(cnt) mp(cnt, variables = "x1", type = "conditional", method = "interval", N = NULL,
                                         variable_splits = list(x1 = c(-4, -1, 0, 1, 4)), grid = profile_grids(intervals = 6)),
      all_columns = function(cnt) mp(cnt, type = "conditional", N = 100, seed = 6, grid_points = 5),
      missing = function(cnt) mp(cnt, data = D()$Xna, variables = c("x1", "f", "ch"), type = "conditional",
                                 N = NULL, grid_points = 6),
      missing_interval = function(cnt) mp(cnt, data = D()$Xna, variables = "x1", type = "conditional",
                                          method = "interval", N = NULL, grid_points = 6, grid = profile_grids(intervals = 5)),
      threads1 = function(cnt) mp(cnt, variables = c("x1", "f"), type = "conditional", N = NULL, grid_points = 7, threads = 1),
      threads2 = function(cnt) mp(cnt, variables = c("x1", "f"), type = "conditional", N = NULL, grid_points = 7, threads = 2),
      lm_kernel = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x1", "x2", "f"),
                                              type = "conditional", N = NULL, grid_points = 7),
      lm_interval = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x1", "ch"),
                                                type = "conditional", method = "interval", N = NULL, grid = profile_grids(intervals = 6)),
      lm_counted = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x1", "xi"),
                                               predict_function = cnt(default_predict_function(golden_model("lm"))),
                                               type = "conditional", N = 150, seed = 1, grid_points = 7)
    )),
    accumulated = list(needs = character(), cases = list(
      interval_numeric = function(cnt) mp(cnt, variables = c("x1", "x2", "x3"), type = "accumulated", N = NULL, grid = profile_grids(intervals = 10)),
      interval_default_K = function(cnt) mp(cnt, variables = "x1", type = "accumulated", N = NULL),
      interval_integer = function(cnt) mp(cnt, variables = "xi", type = "accumulated", N = NULL, grid = profile_grids(intervals = 6)),
      kernel_numeric = function(cnt) mp(cnt, variables = c("x1", "x2"), type = "accumulated", method = "kernel",
                                        N = NULL, grid_points = 9),
      kernel_bw = function(cnt) mp(cnt, variables = "x1", type = "accumulated", method = "kernel", N = NULL,
                                   grid_points = 9, bandwidth = 0.4),
      kernel_integer = function(cnt) mp(cnt, variables = "xi", type = "accumulated", method = "kernel",
                                        N = NULL, grid_points = 8),
      factor_similarity = function(cnt) mp(cnt, variables = "f", type = "accumulated", N = NULL),
      factor_levels = function(cnt) mp(cnt, variables = "f", type = "accumulated", N = NULL, grid = profile_grids(level_order = "levels")),
      character = function(cnt) mp(cnt, variables = "ch", type = "accumulated", N = NULL),
      logical = function(cnt) mp(cnt, variables = "lg", type = "accumulated", N = NULL),
      all_columns = function(cnt) mp(cnt, type = "accumulated", N = 120, seed = 7, grid = profile_grids(intervals = 5)),
      edges = function(cnt) mp(cnt, variables = "x1", type = "accumulated", N = NULL,
                               variable_splits = list(x1 = c(-1, -0.3, 0, 0.4, 1))),
      N_seed = function(cnt) mp(cnt, variables = c("x1", "ch"), type = "accumulated", N = 90, seed = 12, grid = profile_grids(intervals = 7)),
      missing = function(cnt) mp(cnt, data = D()$Xna, variables = c("x1", "f"), type = "accumulated", N = NULL,
                                 grid = profile_grids(intervals = 6)),
      missing_kernel = function(cnt) mp(cnt, data = D()$Xna, variables = "x1", type = "accumulated",
                                        method = "kernel", N = NULL, grid_points = 7),
      threads1 = function(cnt) mp(cnt, variables = c("x2", "f"), type = "accumulated", N = NULL, grid = profile_grids(intervals = 8), threads = 1),
      threads2 = function(cnt) mp(cnt, variables = c("x2", "f"), type = "accumulated", N = NULL, grid = profile_grids(intervals = 8), threads = 2),
      small_budget = function(cnt) mp(cnt, variables = c("x1", "ch"), type = "accumulated", N = NULL, grid = profile_grids(intervals = 8),
                                      memory_budget = 0.02),
      lm_interval = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x1", "x2", "f", "lg"),
                                                type = "accumulated", N = NULL, grid = profile_grids(intervals = 8)),
      lm_kernel = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x1", "xi"),
                                              type = "accumulated", method = "kernel", N = NULL, grid_points = 7),
      lm_counted = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x2", "ch"),
                                               predict_function = cnt(default_predict_function(golden_model("lm"))),
                                               type = "accumulated", N = NULL, grid = profile_grids(intervals = 6))
    )),
    classes = list(needs = character(), cases = list(
      glm_pd = function(cnt) model_profile(golden_model("glm"), D()$X, variables = c("x1", "f", "lg"), N = NULL, grid_points = 7),
      glm_pd_predict = function(cnt) model_profile(golden_model("glm"), D()$X, variables = c("x1", "f"), N = NULL,
                                                   grid_points = 7, engine = "predict"),
      glm_class_false = function(cnt) model_profile(golden_model("glm"), D()$X, variables = "x1", N = NULL,
                                                    grid_points = 7, class = "FALSE"),
      glm_both = function(cnt) model_profile(golden_model("glm"), D()$X, variables = "x2", N = NULL,
                                             grid_points = 7, class = c("FALSE", "TRUE")),
      glm_ld = function(cnt) model_profile(golden_model("glm"), D()$X, variables = c("x1", "f"), type = "conditional",
                                           N = NULL, grid_points = 7),
      glm_al = function(cnt) model_profile(golden_model("glm"), D()$X, variables = c("x1", "f"), type = "accumulated",
                                           N = NULL, grid = profile_grids(intervals = 6)),
      glm_counted = function(cnt) model_profile(golden_model("glm"), D()$X, variables = "x3", N = NULL, grid_points = 5,
                                                predict_function = cnt(default_predict_function(golden_model("glm")))),
      glm_factor3 = function(cnt) model_profile(golden_model("glm_f3"), D()$X, variables = "x1", N = NULL, grid_points = 5),
      prob_pd = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob),
                                            variables = c("x1", "f"), N = NULL, grid_points = 6),
      prob_class_subset = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob),
                                                      variables = "x1", N = NULL, grid_points = 6, class = c("hi", "lo")),
      prob_class_number = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob),
                                                      variables = "x2", N = NULL, grid_points = 6, class = 2),
      prob_ld = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob), variables = c("x1", "ch"),
                                            type = "conditional", N = NULL, grid_points = 6),
      prob_ld_interval = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob), variables = "x1",
                                                     type = "conditional", method = "interval", N = NULL, grid = profile_grids(intervals = 5)),
      prob_al = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob), variables = c("x1", "f"),
                                            type = "accumulated", N = NULL, grid = profile_grids(intervals = 6)),
      prob_al_kernel = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob), variables = "x2",
                                                   type = "accumulated", method = "kernel", N = NULL, grid_points = 6,
                                                   class = "mid")
    )),
    multinom = list(needs = "nnet", cases = list(
      pd = function(cnt) model_profile(golden_model("multinom"), D()$X, variables = c("x1", "f", "ch"), N = NULL, grid_points = 6),
      pd_subset = function(cnt) model_profile(golden_model("multinom"), D()$X, variables = "x1", N = NULL, grid_points = 6,
                                              class = c("hi", "lo")),
      pd_number = function(cnt) model_profile(golden_model("multinom"), D()$X, variables = "x2", N = NULL, grid_points = 6,
                                              class = 2),
      ld = function(cnt) model_profile(golden_model("multinom"), D()$X, variables = c("x1", "f"), type = "conditional",
                                       N = NULL, grid_points = 6),
      al = function(cnt) model_profile(golden_model("multinom"), D()$X, variables = c("x1", "ch"), type = "accumulated",
                                       N = NULL, grid = profile_grids(intervals = 6)),
      al_kernel = function(cnt) model_profile(golden_model("multinom"), D()$X, variables = "x3", type = "accumulated",
                                              method = "kernel", N = NULL, grid_points = 6),
      counted = function(cnt) model_profile(golden_model("multinom"), D()$X, variables = "x1", N = NULL, grid_points = 6,
                                            predict_function = cnt(default_predict_function(golden_model("multinom")))),
      groups = function(cnt) model_profile(golden_model("multinom"), D()$X, variables = "x1", N = NULL, grid_points = 5,
                                           groups = "lg", class = "hi"),
      clusters = function(cnt) model_profile(golden_model("multinom"), D()$X, variables = c("x1", "x2"), N = 80, seed = 3,
                                             grid_points = 5, k = 2),
      pd_2d = function(cnt) model_profile_2d(golden_model("multinom"), D()$X, variables = c("x1", "f"), N = 80, seed = 1,
                                             grid_points = 4),
      al_2d = function(cnt) model_profile_2d(golden_model("multinom"), D()$X, variables = c("x1", "x2"), type = "accumulated",
                                             N = NULL, grid = profile_grids(intervals = 4), class = "mid"),
      h = function(cnt) h_statistic(golden_model("multinom"), D()$X, variables = c("x1", "x2", "x3", "f"), N = 40, seed = 1,
                                    pairs = 3),
      compare = function(cnt) compare_profiles(golden_model("multinom"), D()$X, variables = c("x1", "f"), N = 100, seed = 2,
                                               grid_points = 6, grid = profile_grids(intervals = 6), class = "lo")
    )),
    weights = list(needs = character(), cases = list(
      pd = function(cnt) mp(cnt, variables = c("x1", "xi", "f"), N = NULL, grid_points = 7, weights = D()$w),
      pd_uniform = function(cnt) mp(cnt, variables = c("x1", "xi"), N = NULL, grid_points = 7, weights = D()$w,
                                    variable_splits_type = "uniform"),
      pd_distinct = function(cnt) mp(cnt, variables = "x2", N = NULL, grid_points = 7, weights = D()$w,
                                     variable_splits_type = "distinct"),
      pd_N = function(cnt) mp(cnt, variables = c("x1", "ch"), N = 100, seed = 8, grid_points = 7, weights = D()$w),
      column = function(cnt) model_profile(NULL, D()$Xw, predict_function = cnt(g), N = NULL, grid_points = 5, weights = "wt"),
      ld_kernel = function(cnt) mp(cnt, variables = c("x1", "f"), type = "conditional", N = NULL, grid_points = 7, weights = D()$w),
      ld_interval = function(cnt) mp(cnt, variables = "x1", type = "conditional", method = "interval", N = NULL,
                                     grid_points = 7, grid = profile_grids(intervals = 6), weights = D()$w),
      al_interval = function(cnt) mp(cnt, variables = c("x1", "xi", "f", "ch"), type = "accumulated", N = NULL,
                                     grid = profile_grids(intervals = 7), weights = D()$w),
      al_kernel = function(cnt) mp(cnt, variables = "x2", type = "accumulated", method = "kernel", N = NULL,
                                   grid_points = 7, weights = D()$w),
      lm_native = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x1", "x2"), N = NULL,
                                              grid_points = 7, weights = D()$w),
      glm_al = function(cnt) model_profile(golden_model("glm"), D()$X, variables = "x2", type = "accumulated",
                                           N = NULL, grid = profile_grids(intervals = 6), weights = D()$w),
      prob_pd = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob), variables = "x1",
                                            N = NULL, grid_points = 6, weights = D()$w)
    )),
    groups = list(needs = character(), cases = list(
      factor_pd = function(cnt) mp(cnt, variables = c("x1", "x2"), N = NULL, grid_points = 6, groups = "f"),
      factor_all_columns = function(cnt) mp(cnt, N = 100, seed = 2, grid_points = 4, groups = "f"),
      numeric_bins = function(cnt) mp(cnt, variables = c("x1", "ch"), N = NULL, grid_points = 6, groups = "x3"),
      numeric_bins4 = function(cnt) mp(cnt, variables = "x1", N = NULL, grid_points = 6, groups = profile_groups("x2", bins = 4)),
      integer_groups = function(cnt) mp(cnt, variables = "x1", N = NULL, grid_points = 6, groups = profile_groups("xi", bins = 2)),
      vector = function(cnt) mp(cnt, variables = "x1", N = NULL, grid_points = 6, groups = profile_groups(D()$half, title = "half")),
      vector_untitled = function(cnt) mp(cnt, variables = "f", N = NULL, groups = D()$half),
      ld_kernel = function(cnt) mp(cnt, variables = c("x1", "f"), type = "conditional", N = NULL, grid_points = 6, groups = "lg"),
      ld_interval = function(cnt) mp(cnt, variables = "x1", type = "conditional", method = "interval", N = NULL,
                                     grid_points = 6, grid = profile_grids(intervals = 5), groups = "ch"),
      al_group = function(cnt) mp(cnt, variables = c("x1", "f"), type = "accumulated", N = NULL, grid = profile_grids(intervals = 6), groups = "ch"),
      al_common = function(cnt) mp(cnt, variables = c("x1", "f"), type = "accumulated", N = NULL, grid = profile_grids(intervals = 6), groups = profile_groups("ch", al_shift = "common")),
      al_kernel = function(cnt) mp(cnt, variables = "x2", type = "accumulated", method = "kernel", N = NULL,
                                   grid_points = 6, groups = "lg"),
      min_size = function(cnt) mp(cnt, variables = "x1", N = NULL, grid_points = 6, groups = profile_groups("f", min_size = 70)),
      missing = function(cnt) mp(cnt, data = D()$Xna, variables = "x2", N = NULL, grid_points = 6, groups = "f"),
      weights = function(cnt) mp(cnt, variables = c("x1", "f"), N = NULL, grid_points = 6, groups = "x3", weights = D()$w),
      al_weights = function(cnt) mp(cnt, variables = "x1", type = "accumulated", N = NULL, grid = profile_grids(intervals = 5), groups = "lg",
                                    weights = D()$w),
      N_seed = function(cnt) mp(cnt, variables = "x1", N = 120, seed = 4, grid_points = 6, groups = "f"),
      lm = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x1", "x2"), N = NULL, grid_points = 6,
                                       groups = "f"),
      lm_al = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x1", "ch"), type = "accumulated",
                                          N = NULL, grid = profile_grids(intervals = 5), groups = "lg"),
      prob = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob), variables = "x1",
                                         N = NULL, grid_points = 5, groups = "lg")
    )),
    clusters = list(needs = character(), cases = list(
      k2 = function(cnt) mp(cnt, variables = c("x1", "x2"), N = 100, seed = 1, grid_points = 6, k = 2),
      k3_uncentred = function(cnt) mp(cnt, variables = c("x1", "ch"), N = 100, seed = 1, grid_points = 6, groups = profile_clusters(3, center = FALSE)),
      k2_all_rows = function(cnt) mp(cnt, variables = "x1", N = NULL, grid_points = 6, k = 2),
      k2_weights = function(cnt) mp(cnt, variables = c("x1", "f"), N = 120, seed = 2, grid_points = 6, k = 2,
                                    weights = D()$w),
      k4_lm = function(cnt) model_profile(golden_model("lm"), D()$X, variables = c("x1", "x2"), N = 100, seed = 3,
                                          grid_points = 6, k = 4),
      k2_prob = function(cnt) model_profile(NULL, D()$X, predict_function = cnt(golden_prob), variables = "x1",
                                            N = 80, seed = 3, grid_points = 5, k = 2)
    )),
    na_level = list(needs = character(), cases = list(
      pd_factor = function(cnt) mp(cnt, data = D()$Xna, variables = c("f", "ch"), N = NULL, grid = profile_grids(na_level = TRUE)),
      pd_factor_off = function(cnt) mp(cnt, data = D()$Xna, variables = c("f", "ch"), N = NULL),
      ld_factor = function(cnt) mp(cnt, data = D()$Xna, variables = c("f", "ch"), type = "conditional", N = NULL,
                                   grid = profile_grids(na_level = TRUE)),
      al_factor = function(cnt) mp(cnt, data = D()$Xna, variables = c("f", "ch"), type = "accumulated", N = NULL,
                                   grid = profile_grids(na_level = TRUE)),
      al_levels = function(cnt) mp(cnt, data = D()$Xna, variables = "f", type = "accumulated", N = NULL,
                                   grid = profile_grids(na_level = TRUE, level_order = "levels")),
      al_factor_off = function(cnt) mp(cnt, data = D()$Xna, variables = c("f", "ch"), type = "accumulated", N = NULL),
      numeric_with_na_level = function(cnt) mp(cnt, data = D()$Xna, variables = c("x1", "f"), type = "accumulated",
                                               N = NULL, grid = profile_grids(intervals = 5, na_level = TRUE)),
      splits = function(cnt) mp(cnt, data = D()$Xna, variables = "f", N = NULL, grid = profile_grids(na_level = TRUE),
                                variable_splits = list(f = c(NA, "b"))),
      weights = function(cnt) mp(cnt, data = D()$Xna, variables = "f", type = "conditional", N = NULL,
                                 grid = profile_grids(na_level = TRUE), weights = D()$w),
      all_columns = function(cnt) mp(cnt, data = D()$Xna, N = 100, seed = 3, grid_points = 4, grid = profile_grids(na_level = TRUE))
    )),
    profile_2d = list(needs = character(), cases = list(
      pd_numeric = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "x2"), N = NULL, grid_points = 6),
      pd_numeric_factor = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "f"), N = NULL, grid_points = 5),
      pd_factor_character = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("f", "ch"), N = NULL),
      pd_integer_logical = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("xi", "lg"), N = NULL,
                                                          grid_points = 5),
      pd_pairs = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = list(c("x1", "x2"), c("x3", "ch")),
                                                N = 100, seed = 1, grid_points = 4),
      pd_uniform = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "x3"), N = NULL, grid_points = 5,
                                                  variable_splits_type = "uniform"),
      pd_distinct = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "x3"), N = 90, seed = 2,
                                                   grid_points = 5, variable_splits_type = "distinct"),
      pd_splits = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "f"), N = NULL,
                                                 variable_splits = list(x1 = c(-1, 0, 1), f = c("a", "c"))),
      pd_weights = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "x2"), N = NULL, grid_points = 5,
                                                  weights = D()$w),
      pd_session_N = function(cnt) golden_with_seed(6, model_profile_2d(NULL, D()$X, cnt(g), variables = c("x2", "ch"),
                                                                       N = 70, grid_points = 5)),
      pd_small_budget = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "x2"), N = NULL,
                                                       grid_points = 6, memory_budget = 0.02),
      pd_threads1 = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "f"), N = NULL, grid_points = 5,
                                                   threads = 1),
      pd_threads2 = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "f"), N = NULL, grid_points = 5,
                                                   threads = 2),
      al_numeric = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "x2"), type = "accumulated",
                                                  N = NULL, grid = profile_grids(intervals = 5)),
      al_factor_numeric = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("f", "x2"), type = "accumulated",
                                                         N = NULL, grid = profile_grids(intervals = 5)),
      al_character_numeric = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("ch", "x1"),
                                                            type = "accumulated", N = NULL, grid = profile_grids(intervals = 4, level_order = "levels")),
      al_pairs = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = list(c("x1", "x2"), c("x1", "x3")),
                                                type = "accumulated", N = 150, seed = 3, grid = profile_grids(intervals = 4)),
      al_weights = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "x2"), type = "accumulated",
                                                  N = NULL, grid = profile_grids(intervals = 4), weights = D()$w),
      al_missing = function(cnt) model_profile_2d(NULL, D()$Xna, cnt(g), variables = c("x1", "x2"), type = "accumulated",
                                                  N = NULL, grid = profile_grids(intervals = 4)),
      al_threads2 = function(cnt) model_profile_2d(NULL, D()$X, cnt(g), variables = c("x1", "x2"), type = "accumulated",
                                                   N = NULL, grid = profile_grids(intervals = 5), threads = 2),
      prob_pd = function(cnt) model_profile_2d(NULL, D()$X, cnt(golden_prob), variables = c("x1", "x2"), N = NULL,
                                               grid_points = 4),
      prob_al = function(cnt) model_profile_2d(NULL, D()$X, cnt(golden_prob), variables = c("x1", "x2"),
                                               type = "accumulated", N = NULL, grid = profile_grids(intervals = 4), class = c("lo", "hi")),
      lm_pd = function(cnt) model_profile_2d(golden_model("lm"), D()$X, variables = c("x1", "x2"), N = NULL, grid_points = 5),
      lm_al = function(cnt) model_profile_2d(golden_model("lm"), D()$X, variables = c("x1", "x2"), type = "accumulated",
                                             N = NULL, grid = profile_grids(intervals = 4)),
      glm_pd = function(cnt) model_profile_2d(golden_model("glm"), D()$X, variables = c("x1", "f"), N = NULL, grid_points = 5)
    )),
    h_statistic = list(needs = character(), cases = list(
      numeric = function(cnt) h_statistic(NULL, D()$X, cnt(g), variables = c("x1", "x2", "x3"), N = 80, seed = 1),
      all_columns = function(cnt) h_statistic(NULL, D()$X, cnt(g), N = 50, seed = 2, pairs = 4),
      mixed = function(cnt) h_statistic(NULL, D()$X, cnt(g), variables = c("x1", "f", "ch", "lg"), N = 60, seed = 3, pairs = 3),
      no_pairs = function(cnt) h_statistic(NULL, D()$X, cnt(g), variables = c("x1", "x2", "xi"), N = 60, seed = 4, pairs = 0),
      weights = function(cnt) h_statistic(NULL, D()$X, cnt(g), variables = c("x1", "x2", "f"), N = 70, seed = 5,
                                          weights = D()$w),
      weights_column = function(cnt) h_statistic(NULL, D()$Xw, cnt(g), N = 40, seed = 6, weights = "wt", pairs = 3),
      session_N = function(cnt) golden_with_seed(8, h_statistic(NULL, D()$X, cnt(g), variables = c("x1", "x2"), N = 50)),
      small_budget = function(cnt) h_statistic(NULL, D()$X, cnt(g), variables = c("x1", "x2", "x3"), N = 60, seed = 1,
                                               memory_budget = 0.05),
      threads1 = function(cnt) h_statistic(NULL, D()$X, cnt(g), variables = c("x1", "x2", "ch"), N = 60, seed = 1, threads = 1),
      threads2 = function(cnt) h_statistic(NULL, D()$X, cnt(g), variables = c("x1", "x2", "ch"), N = 60, seed = 1, threads = 2),
      prob = function(cnt) h_statistic(NULL, D()$X, cnt(golden_prob), variables = c("x1", "x2", "f"), N = 50, seed = 2),
      prob_class = function(cnt) h_statistic(NULL, D()$X, cnt(golden_prob), variables = c("x1", "x2"), N = 50, seed = 2,
                                             class = "hi"),
      lm = function(cnt) h_statistic(golden_model("lm"), D()$X, N = 60, seed = 3),
      glm = function(cnt) h_statistic(golden_model("glm"), D()$X, variables = c("x1", "x2", "f"), N = 60, seed = 3)
    )),
    hidden_interactions = list(needs = character(), cases = list(
      one_grouping = function(cnt) hidden_interactions(NULL, D()$X, cnt(g), variables = c("x1", "x2", "x3"), groups = "f"),
      several = function(cnt) hidden_interactions(NULL, D()$X, cnt(g), variables = c("x1", "x3", "xi"),
                                                  groups = c("ch", "lg", "x2")),
      list_groups = function(cnt) hidden_interactions(NULL, D()$X, cnt(g), variables = c("x1", "x2"),
                                                      groups = list(half = D()$half, sign = D()$X$x3 > 0)),
      thresholds = function(cnt) hidden_interactions(NULL, D()$X, cnt(g), variables = c("x1", "x3"), groups = profile_groups("ch", min_size = 70),
                                                     rule = "thresholds", flat = 0.5, sloped = 0.1),
      weights = function(cnt) hidden_interactions(NULL, D()$X, cnt(g), variables = c("x1", "x2"), groups = "f",
                                                  weights = D()$w),
      splits = function(cnt) hidden_interactions(NULL, D()$X, cnt(g), variables = "x1", groups = "ch",
                                                 variable_splits = list(x1 = c(-1.5, 1.5))),
      N_seed = function(cnt) hidden_interactions(NULL, D()$X, cnt(g), variables = c("x1", "x3"), groups = "lg",
                                                 N = 100, seed = 1, grid_points = 4, variable_splits_type = "quantiles"),
      prob = function(cnt) hidden_interactions(NULL, D()$X, cnt(golden_prob), variables = "x1", groups = "f", class = "lo"),
      lm = function(cnt) hidden_interactions(golden_model("lm"), D()$X, variables = c("x1", "x2"), groups = c("f", "ch"))
    )),
    compare_profiles = list(needs = character(), cases = list(
      numeric = function(cnt) compare_profiles(NULL, D()$X, cnt(g), variables = c("x1", "x2", "x3"), N = NULL,
                                               grid_points = 7, grid = profile_grids(intervals = 6)),
      mixed = function(cnt) compare_profiles(NULL, D()$X, cnt(g), variables = c("x1", "f", "ch", "lg", "xi"), N = 120,
                                             seed = 1, grid_points = 6, grid = profile_grids(intervals = 5)),
      bandwidth = function(cnt) compare_profiles(NULL, D()$X, cnt(g), variables = "x1", N = NULL, grid_points = 7,
                                                 bandwidth = 0.25),
      weights = function(cnt) compare_profiles(NULL, D()$X, cnt(g), variables = c("x1", "f"), N = NULL, grid_points = 6,
                                               grid = profile_grids(intervals = 6), weights = D()$w),
      session_N = function(cnt) golden_with_seed(9, compare_profiles(NULL, D()$X, cnt(g), variables = "x2", N = 80,
                                                                     grid_points = 5)),
      prob = function(cnt) compare_profiles(NULL, D()$X, cnt(golden_prob), variables = c("x1", "x2"), N = NULL,
                                            grid_points = 5, grid = profile_grids(intervals = 5)),
      lm = function(cnt) compare_profiles(golden_model("lm"), D()$X, variables = c("x1", "x2", "f"), N = NULL,
                                          grid_points = 6, grid = profile_grids(intervals = 6)),
      glm_threads1 = function(cnt) compare_profiles(golden_model("glm"), D()$X, variables = c("x1", "x2"), N = NULL,
                                                    grid_points = 6, grid = profile_grids(intervals = 6), threads = 1)
    )),
    explainer = list(needs = "DALEX", cases = list(
      # (DALEX's positional order: N = 100 rows drawn from the session's stream.)
      positional = function(cnt) golden_with_seed(10, model_profile(golden_explainer(), c("x1", "f"), 100)),
      positional_al = function(cnt) model_profile(golden_explainer(), c("x1", "ch"), 120, type = "accumulated",
                                                  grid = profile_grids(intervals = 6), seed = 2),
      weights = function(cnt) model_profile(golden_explainer(weights = TRUE), variables = "x2", N = NULL, grid_points = 6),
      own_predict = function(cnt) model_profile(golden_explainer(predict_function = cnt(golden_fun)), variables = "x1",
                                                N = NULL, grid_points = 6, type = "conditional"),
      data = function(cnt) model_profile(golden_explainer(), data = D()$X[1:150, ], variables = "x3", N = NULL,
                                         grid_points = 5),
      h = function(cnt) h_statistic(golden_explainer(), variables = c("x1", "x2", "f"), N = 50, seed = 1)
    )),
    engines_linear = list(needs = character(), cases = golden_engine_cases_linear()),
    engines_ranger = list(needs = "ranger",
                          cases = golden_engine_cases("ranger", function() D()$Xt, "ranger_prob", class = c("hi", "mid"))),
    engines_randomForest = list(needs = "randomForest",
                                cases = golden_engine_cases("randomForest", function() D()$Xt, "randomForest_class",
                                                            class = "lo")),
    engines_gbm = list(needs = "gbm", cases = golden_engine_cases("gbm", function() D()$Xt, "gbm_bern")),
    engines_xgboost = list(needs = "xgboost", tolerance = 1e-6,
                           cases = golden_engine_cases("xgboost", function() D()$Xm, "xgboost_multi", class = c("0", "2"))),
    engines_xgboost_binary = list(needs = "xgboost", tolerance = 1e-6,
                                  cases = golden_engine_cases("xgboost_bin", function() D()$Xm)[c("pd_native", "pd_predict",
                                                                                               "al_interval_native")]),
    engines_lightgbm = list(needs = "lightgbm",
                            cases = golden_engine_cases("lightgbm", function() D()$Xm, "lightgbm_multi", class = "1"))
  )
}

# The sampling bands of every estimator, analytic and bootstrap (their
# limits, and the bootstrap's replicates): PD, kernel and interval LD,
# interval, kernel and categorical AL, 2-D PD and AL, with weights, with
# subgroups, of three classes, through the linear engine (identity and
# logit links), and the diagnostics that carry the replicates.
golden_band_cases <- function() {
  D <- golden_data
  g <- golden_fun
  mp <- function(cnt, ..., f = g) model_profile(NULL, D()$X, predict_function = cnt(f), N = NULL, ...)
  mp2 <- function(cnt, ...) model_profile_2d(NULL, D()$X, predict_function = cnt(g), N = NULL, ...)
  cases <- list()
  for (b in c("analytic", "bootstrap")) {
    local({
      bb <- b
      one <- function(.fun, ...) {
        args <- list(...)
        function(cnt) do.call(.fun, c(list(cnt), args, list(bands = profile_bands(bb, B = 25), seed = 3)))
      }
      lm_case <- function(model, ...) {
        args <- list(...)
        function(cnt) do.call(model_profile, c(list(golden_model(model), D()$X, N = 150), args,
                                               list(bands = profile_bands(bb, B = 25), seed = 3)))
      }
      add <- list(
        pd = one(mp, variables = c("x1", "xi", "f"), grid_points = 8),
        pd_weights = one(mp, variables = c("x2", "ch"), grid_points = 6, weights = D()$w),
        pd_groups = one(mp, variables = "x1", grid_points = 6, groups = "lg"),
        pd_prob = one(mp, variables = c("x1", "f"), grid_points = 5, f = golden_prob),
        ld_kernel = one(mp, variables = c("x1", "x3"), type = "conditional", grid_points = 7),
        ld_interval = one(mp, variables = "x1", type = "conditional", method = "interval", grid_points = 7),
        al_interval = one(mp, variables = c("x1", "x2", "xi"), type = "accumulated", grid = profile_grids(intervals = 8)),
        al_interval_weights = one(mp, variables = "x1", type = "accumulated", grid = profile_grids(intervals = 6), weights = D()$w),
        al_interval_groups = one(mp, variables = "x3", type = "accumulated", grid = profile_grids(intervals = 5), groups = "lg"),
        al_interval_prob = one(mp, variables = "x2", type = "accumulated", grid = profile_grids(intervals = 6), f = golden_prob),
        al_kernel = one(mp, variables = "x1", type = "accumulated", method = "kernel", grid_points = 9),
        al_factor = one(mp, variables = c("f", "ch", "lg"), type = "accumulated"),
        al_factor_weights = one(mp, variables = "f", type = "accumulated", weights = D()$w),
        pd2d = one(mp2, variables = c("x1", "x2"), grid_points = 4),
        al2d = one(mp2, variables = c("x1", "x3"), type = "accumulated", grid = profile_grids(intervals = 4)),
        al2d_factor = one(mp2, variables = c("x1", "f"), type = "accumulated", grid = profile_grids(intervals = 4)),
        lm_pd = lm_case("lm", variables = c("x1", "x3", "f"), grid_points = 6),
        lm_pd_ice = lm_case("lm", variables = "x1", grid_points = 6, keep_ice = FALSE),
        glm_pd = lm_case("glm", variables = c("x1", "x3"), grid_points = 6),
        lm_al = lm_case("lm", variables = c("x1", "x3"), type = "accumulated", grid = profile_grids(intervals = 6))
      )
      names(add) <- paste0(names(add), "_", bb)
      cases <<- c(cases, add)
    })
  }
  c(cases, list(
    compare = function(cnt) compare_profiles(NULL, D()$X, cnt(g), variables = c("x1", "f"), N = NULL,
                                             grid_points = 6, grid = profile_grids(intervals = 5),
                                             bands = profile_bands("bootstrap", B = 25), seed = 3),
    h = function(cnt) h_statistic(NULL, D()$X, cnt(g), variables = c("x1", "x2", "f"), N = 80,
                                  bands = profile_bands("bootstrap", B = 25), seed = 3),
    effects = function(cnt) {
      p <- mp(cnt, variables = c("x1", "f"), type = "accumulated", grid = profile_grids(intervals = 6),
              bands = profile_bands("bootstrap", B = 25), seed = 3)
      as.data.frame(effect_sizes(p))
    }
  ))
}

# A DALEX explainer of the lm (DALEX's default predict function, which the
# package's own stands in for), with weights or a predict function of ours.
golden_explainer <- function(weights = FALSE, predict_function = NULL) {
  d <- golden_data()
  args <- list(golden_model("lm"), data = d$X, y = d$y, label = "explained lm", verbose = FALSE)
  if (weights) args$weights <- d$w
  explainer <- suppressWarnings(suppressMessages(do.call(DALEX::explain, args)))
  # (Set after explain(), whose own calls of it are not counted.)
  if (!is.null(predict_function)) explainer$predict_function <- predict_function
  explainer
}

# lm and glm: the linear engine (partial dependence of a variable that
# enters by its name) against predict(), and what "native" does elsewhere.
golden_engine_cases_linear <- function() {
  D <- golden_data
  cases <- list()
  for (model in c("lm", "lm_poly", "glm", "glm_pois")) {
    for (engine in c("native", "predict", "auto")) {
      local({
        m <- model; e <- engine
        cases[[paste0(m, "_pd_", e)]] <<- function(cnt) {
          model_profile(golden_model(m), D()$X, variables = c("x1", "x3", "xi"), N = 150, seed = 1,
                        grid_points = 7, engine = e)
        }
      })
    }
    local({
      m <- model
      cases[[paste0(m, "_al_auto")]] <<- function(cnt) {
        model_profile(golden_model(m), D()$X, variables = c("x1", "x3"), type = "accumulated", N = 150,
                      seed = 1, grid = profile_grids(intervals = 6))
      }
      cases[[paste0(m, "_ld_auto")]] <<- function(cnt) {
        model_profile(golden_model(m), D()$X, variables = "x3", type = "conditional", N = 150,
                      seed = 1, grid_points = 7)
      }
    })
  }
  cases$lm_pd_native_threads2 <- function(cnt) {
    model_profile(golden_model("lm"), D()$X, variables = c("x1", "x2"), N = NULL, grid_points = 7,
                  engine = "native", threads = 2)
  }
  cases$lm_pd_native_threads1 <- function(cnt) {
    model_profile(golden_model("lm"), D()$X, variables = c("x1", "x2"), N = NULL, grid_points = 7,
                  engine = "native", threads = 1)
  }
  cases$lm_pd_native_categorical <- function(cnt) {
    model_profile(golden_model("lm"), D()$X, variables = c("f", "lg", "ch"), N = NULL, engine = "native")
  }
  cases
}

# ---- Running and recording ------------------------------------------------

# Condition text without cli's styling, at a fixed width and in ASCII, so
# that it reads the same in every session.
golden_text <- function(cnd) cli::ansi_strip(conditionMessage(cnd))

# (testthat's local_reproducible_output() settings, which an Rscript session
# does not have: messages are not wrapped, ASCII bullets, no colours or
# links, English, C collation.)
golden_options <- list(cli.width = 80, cli.condition_width = Inf, cli.unicode = FALSE,
                       cli.num_colors = 1, cli.dynamic = FALSE, cli.hyperlink = FALSE,
                       cli.hyperlink_help = FALSE, cli.hyperlink_run = FALSE,
                       cli.hyperlink_vignette = FALSE, crayon.enabled = FALSE,
                       useFancyQuotes = FALSE, width = 80, digits = 7, scipen = 0, OutDec = ".",
                       modelprofiles.memory_budget = NULL, modelprofiles.threads = NULL,
                       modelprofiles.row_order = NULL,
                       # Small budgets cut the cases into many chunks
                       # (no floor: see helper-chunks.R).
                       modelprofiles.min_chunk_rows = 0,
                       # Messages said once a session are said in every case.
                       rlib_message_verbosity = "verbose")

# Run one case: its result's digest, with the messages, warnings and error
# it gave and the rows of each call of the counted predict functions.
golden_run <- function(case) {
  old <- options(golden_options)
  on.exit(options(old), add = TRUE)
  language <- Sys.getenv("LANGUAGE", unset = NA)
  Sys.setenv(LANGUAGE = "en")
  on.exit(if (is.na(language)) Sys.unsetenv("LANGUAGE") else Sys.setenv(LANGUAGE = language), add = TRUE)
  collate <- Sys.getlocale("LC_COLLATE")
  Sys.setlocale("LC_COLLATE", "C")
  on.exit(Sys.setlocale("LC_COLLATE", collate), add = TRUE)
  # Sequential prediction (a plan set elsewhere would chunk differently).
  if (isNamespaceLoaded("future")) {
    plan <- future::plan("sequential")
    on.exit(future::plan(plan), add = TRUE)
  }
  sizes <- integer()
  messages <- warnings <- character()
  cnt <- function(f) {
    force(f)
    function(model, newdata) {
      sizes <<- c(sizes, nrow(newdata))
      f(model, newdata)
    }
  }
  error <- NULL
  res <- tryCatch(
    withCallingHandlers(
      case(cnt),
      message = function(m) {
        messages <<- c(messages, golden_text(m))
        invokeRestart("muffleMessage")
      },
      warning = function(w) {
        warnings <<- c(warnings, golden_text(w))
        invokeRestart("muffleWarning")
      }
    ),
    error = function(e) {
      error <<- golden_text(e)
      NULL
    }
  )
  out <- if (is.null(error)) golden_digest(res) else list(numbers = list(), text = list(), counts = list())
  out$text$messages <- messages
  out$text$warnings <- warnings
  out$text$error <- error
  out$counts$predict_sizes <- sizes
  out
}

# Values of a list or vector, whatever its shape (a vector, or a list of
# them by variable or subgroup), as one unnamed vector.
golden_flat <- function(x) if (!is.null(x)) as.vector(unlist(x))

# A data frame as it is when small; else a fingerprint: its shape and
# column classes, sums of the predictions (plain, squared, weighted by
# position) and of ids and x per variable and label, and a spread sample of
# its rows.
golden_frame <- function(df, max_rows = 500, sample_rows = 80) {
  # Compact ICE curves: their long frame (DALEX's columns; ingredients' wide
  # ones are made from them, and tested in test-result_ice.R).
  if (inherits(df, "mp_ice")) df <- as.data.frame(df)[c("_vname_", "_label_", "_ids_", "_x_", "_yhat_")]
  if (is.null(df) || nrow(df) <= max_rows) return(df)
  key <- paste(df$`_vname_`, df$`_label_`, sep = "|")
  by <- split(seq_len(nrow(df)), factor(key, levels = unique(key)))
  yhat <- df$`_yhat_`
  x <- df$`_x_`
  list(
    nrow = nrow(df),
    names = names(df),
    classes = vapply(df, function(col) class(col)[1L], character(1)),
    keys = names(by),
    n = vapply(by, length, numeric(1)),
    yhat_sum = vapply(by, function(i) sum(yhat[i]), numeric(1)),
    yhat_sq = vapply(by, function(i) sum(yhat[i]^2), numeric(1)),
    yhat_pos = vapply(by, function(i) sum(yhat[i] * seq_along(i)) / length(i), numeric(1)),
    ids_sum = vapply(by, function(i) sum(as.double(df$`_ids_`[i]) * seq_along(i)), numeric(1)),
    x_sum = vapply(by, function(i) if (is.numeric(x)) sum(as.double(x[i])) else length(unique(x[i])), numeric(1)),
    sample = df[unique(round(seq(1, nrow(df), length.out = sample_rows))), , drop = FALSE]
  )
}

# The numbers of a digest with the bootstrap's replicates (and `more`
# fields) of a result that has them (the fields are left out otherwise, as
# in the records made before they were pinned).
golden_replicates <- function(numbers, res, more = character()) {
  for (f in c("replicates", more)) numbers[[f]] <- res[[f]]
  numbers
}

# What is pinned of a result, by class: `numbers` (compared with a
# tolerance), `text` (identical), `counts` (identical numbers).
golden_digest <- function(res) {
  if (inherits(res, "mp_profile")) {
    return(list(
      numbers = list(
        agr_profiles = res$agr_profiles,
        cp_profiles = golden_frame(res$cp_profiles),
        grids = res$grids,
        intervals = golden_flat(res$intervals),
        bandwidth = golden_flat(res$bandwidth),
        mean_prediction = golden_flat(res$mean_prediction),
        no_support = golden_flat(res$no_support),
        rows = res$rows,
        weights = golden_flat(res$weights),
        clusters = res$clusters
      ) |> golden_replicates(res),
      text = list(type = res$type, method = res$method, engine = res$engine, label = res$label,
                  labels = res$labels, class = res$class, variables = res$variables),
      counts = list(n_predictions = res$n_predictions, N = res$N)
    ))
  }
  if (inherits(res, "mp_profile_2d")) {
    return(list(
      numbers = list(agr_profiles = res$agr_profiles, grids = res$grids,
                     intervals = golden_flat(res$intervals), rows = res$rows,
                     weights = golden_flat(res$weights)) |> golden_replicates(res),
      text = list(type = res$type, pairs = res$pairs, engine = res$engine, label = res$label,
                  labels = res$labels, class = res$class),
      counts = list(n_predictions = res$n_predictions, N = res$N)
    ))
  }
  if (inherits(res, "mp_h_statistic")) {
    return(list(
      numbers = list(overall = res$overall, pairwise = res$pairwise, total = res$total,
                     rows = res$rows, weights = golden_flat(res$weights)) |>
        golden_replicates(res, "total_bands"),
      text = list(engine = res$engine, label = res$label, labels = res$labels, class = res$class,
                  variables = res$variables, pair_variables = res$pair_variables),
      counts = list(n_predictions = res$n_predictions, N = res$N)
    ))
  }
  if (inherits(res, "mp_slopes")) {
    profiles <- lapply(res$profiles, golden_digest)
    return(list(
      numbers = list(summary = res$summary, slopes = res$slopes, left_out = res$left_out,
                     grids = res$grids, profiles = lapply(profiles, `[[`, "numbers")),
      text = list(label = res$label, profiles = lapply(profiles, `[[`, "text")),
      counts = list(profiles = lapply(profiles, `[[`, "counts"))
    ))
  }
  if (inherits(res, "mp_comparison")) {
    profiles <- lapply(res$profiles, golden_digest)
    return(list(
      numbers = list(distances = res$distances, profiles = lapply(profiles, `[[`, "numbers")) |>
        golden_replicates(res),
      text = list(label = res$label, profiles = lapply(profiles, `[[`, "text")),
      counts = list(profiles = lapply(profiles, `[[`, "counts"))
    ))
  }
  if (is.data.frame(res)) {
    return(list(numbers = list(table = res), text = list(), counts = list()))
  }
  stop("golden_digest(): no digest for class ", paste(class(res), collapse = "/"))
}

golden_versions <- function(needs) {
  vapply(needs, function(p) as.character(utils::packageVersion(p)), character(1))
}

# Run every case of a family: the record saved to golden/<family>.rds.
golden_run_family <- function(family) {
  list(
    versions = golden_versions(family$needs),
    cases = lapply(family$cases, golden_run)
  )
}
