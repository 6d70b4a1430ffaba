# Second-order AL, categorical AL and multiclass profiles: modelprofiles
# against ALEPlot 1.1 (CRAN archive) and iml, in one run, as ratios; the
# numbers are checked to agree before anything is timed.
#   Rscript inst/bench/bench-al2d-classes.R [reps]
library(modelprofiles)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L
have <- function(p) requireNamespace(p, quietly = TRUE)
timed <- function(expr) {
  gc()
  t <- proc.time()[[3]]
  force(expr)
  proc.time()[[3]] - t
}
med <- function(f) median(vapply(seq_len(reps), function(i) timed(f()), numeric(1)))

set.seed(1)
n <- 5000
g <- factor(sample(letters[1:6], n, TRUE))
shift <- c(a = 3, b = 1, c = 6, d = 2, e = 5, f = 4)[as.character(g)]
X <- data.frame(x1 = rnorm(n) + shift, g = g, x2 = runif(n), x3 = rnorm(n), x4 = rnorm(n))
y <- X$x1 * X$x2 + shift * X$x3 + sin(X$x4) + rnorm(n)
fit <- ranger::ranger(x = X, y = y, num.trees = 100, num.threads = 1, seed = 1)
pf <- function(m, d) predict(m, d, num.threads = 1)$predictions
K <- 20
rows <- list()
add <- function(task, pkg, secs, mp) {
  rows[[length(rows) + 1L]] <<- data.frame(task = task, package = pkg, seconds = secs,
                                          ratio_to_modelprofiles = secs / mp)
}

# 2-D AL, numeric x numeric and factor x numeric.
for (J in list(c("x1", "x2"), c("g", "x3"))) {
  task <- sprintf("2-D AL %s x %s, ranger 100 trees, n = %d, K = %d", J[1], J[2], n, K)
  mp_fun <- function() model_profile_2d(fit, X, pf, variables = J, type = "accumulated",
                                        intervals = K, N = NULL, threads = 1)
  res <- mp_fun()
  t_mp <- med(mp_fun)
  add(task, "modelprofiles", t_mp, t_mp)
  if (have("ALEPlot")) {
    ale_fun <- function() {
      grDevices::pdf(NULL)
      on.exit(grDevices::dev.off())
      ALEPlot::ALEPlot(X, fit, function(X.model, newdata) pf(X.model, newdata),
                       J = match(J, names(X)), K = K)
    }
    ref <- ale_fun()
    stopifnot(isTRUE(all.equal(matrix(res$agr_profiles$`_yhat_`, length(res$grids[[J[1]]])),
                               unname(ref$f.values), tolerance = 1e-10, check.attributes = FALSE)))
    add(task, "ALEPlot", med(ale_fun), t_mp)
  }
  if (have("iml") && have("yaImpute")) {
    P <- iml::Predictor$new(fit, data = X, predict.function = function(model, newdata) pf(model, newdata))
    iml_fun <- function() iml::FeatureEffect$new(P, J, method = "ale", grid.size = K)
    iml_fun()
    add(task, "iml (own grid)", med(iml_fun), t_mp)
  }
}

# Categorical AL.
task <- sprintf("AL of a 6-level factor, ranger 100 trees, n = %d", n)
mp_fun <- function() model_profile(fit, X, pf, variables = "g", type = "accumulated", N = NULL, threads = 1)
res <- mp_fun()
t_mp <- med(mp_fun)
add(task, "modelprofiles", t_mp, t_mp)
if (have("iml")) {
  P <- iml::Predictor$new(fit, data = X, predict.function = function(model, newdata) pf(model, newdata))
  iml_fun <- function() iml::FeatureEffect$new(P, "g", method = "ale")
  fe <- iml_fun()$results
  stopifnot(identical(res$grids$g, as.character(fe$g)),
            isTRUE(all.equal(res$agr_profiles$`_yhat_` - res$mean_prediction, fe$.value, tolerance = 1e-10)))
  add(task, "iml", med(iml_fun), t_mp)
}
if (have("ALEPlot")) {
  ale_fun <- function() {
    grDevices::pdf(NULL)
    on.exit(grDevices::dev.off())
    ALEPlot::ALEPlot(X, fit, function(X.model, newdata) pf(X.model, newdata), J = 2)
  }
  add(task, "ALEPlot", med(ale_fun), t_mp)
}

# Multiclass PD: all classes from one set of predictions, against one run per
# class (what a single-output tool needs).
set.seed(2)
iris_big <- iris[sample(nrow(iris), 3000, TRUE), ]
iris_big[1:4] <- iris_big[1:4] + rnorm(3000 * 4, sd = 0.1)
rf3 <- ranger::ranger(Species ~ ., data = iris_big, num.trees = 100, probability = TRUE,
                      num.threads = 1, seed = 1)
Xi <- iris_big[1:4]
task <- "PD of 3 classes, 4 variables, ranger probability forest, n = 3000, 51 points"
all_fun <- function() model_profile(rf3, Xi, N = NULL, grid_points = 51, threads = 1, keep_ice = FALSE)
one_fun <- function() lapply(levels(iris$Species), function(cl) {
  model_profile(rf3, Xi, N = NULL, grid_points = 51, threads = 1, keep_ice = FALSE, class = cl)
})
a <- all_fun()
o <- one_fun()
stopifnot(isTRUE(all.equal(a$agr_profiles$`_yhat_`[a$agr_profiles$`_label_` == "ranger.virginica"],
                           o[[3]]$agr_profiles$`_yhat_`)))
t_mp <- med(all_fun)
add(task, "modelprofiles, all classes at once", t_mp, t_mp)
add(task, "modelprofiles, one class per run", med(one_fun), t_mp)
if (have("iml")) {
  P3 <- iml::Predictor$new(rf3, data = Xi, predict.function = function(model, newdata) {
    predict(model, newdata, num.threads = 1)$predictions
  })
  iml_fun <- function() lapply(names(Xi), function(v) iml::FeatureEffect$new(P3, v, method = "pdp", grid.size = 51))
  add(task, "iml (all classes)", med(iml_fun), t_mp)
}

out <- do.call(rbind, rows)
out$seconds <- round(out$seconds, 3)
out$ratio_to_modelprofiles <- round(out$ratio_to_modelprofiles, 2)
cat(sprintf("R %s, %s; medians of %d runs; %s\n", getRversion(), R.version$platform, reps, format(Sys.time())))
options(width = 200)
print(out, row.names = FALSE)
