# The linear engine (lm, glm) against the predict() path and the packages
# users would use instead, in one run, as ratios: PD at 101 points for 10
# numeric variables over N = 10,000 background rows, for an lm with
# interactions and a binomial glm. Numbers are checked to agree first.
#   Rscript inst/bench/bench-linear.R
library(modelprofiles)
have <- function(p) requireNamespace(p, quietly = TRUE)
timed <- function(expr) {
  gc()
  t <- proc.time()[[3]]
  force(expr)
  proc.time()[[3]] - t
}
set.seed(1)
n <- 10000
p <- 10
X <- as.data.frame(matrix(rnorm(n * p), n, dimnames = list(NULL, paste0("x", 1:p))))
X$g <- factor(sample(c("a", "b", "c"), n, TRUE))
eta <- X$x1 + X$x1 * X$x2 - X$x3 + 0.5 * (X$g == "b") * X$x4
d <- cbind(X, y = eta + rnorm(n), z = rbinom(n, 1, plogis(eta)))
vars <- paste0("x", 1:p)
fits <- list(
  "lm, y ~ x1 * x2 + g:x4 + .; 10,000 rows" = lm(y ~ x1 * x2 + g:x4 + ., d[c(names(X), "y")]),
  "glm binomial, same terms; 10,000 rows" = glm(z ~ x1 * x2 + g:x4 + ., d[c(names(X), "z")],
                                                family = binomial)
)
out <- list()
for (name in names(fits)) {
  fit <- fits[[name]]
  pf <- function(m, nd) stats::predict(m, nd, type = "response")
  args <- list(fit, X, variables = vars, N = NULL, grid_points = 101, keep_ice = FALSE)
  t_native <- timed(a <- do.call(model_profile, c(args, engine = "native")))
  t_predict <- timed(b <- do.call(model_profile, c(args, engine = "predict")))
  stopifnot(isTRUE(all.equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = 1e-10)))
  add <- function(method, secs) {
    out[[length(out) + 1L]] <<- data.frame(model = name, method = method, seconds = round(secs, 2),
                                           ratio = round(secs / t_native, 1))
  }
  add("modelprofiles, native (linear)", t_native)
  add("modelprofiles, predict()", t_predict)
  if (have("pdp")) {
    t <- timed(for (v in vars) pdp::partial(fit, pred.var = v, train = X, grid.resolution = 101,
                                            pred.fun = function(object, newdata) mean(pf(object, newdata))))
    add("pdp::partial", t)
  }
  if (have("DALEX")) {
    ex <- DALEX::explain(fit, data = X, predict_function = pf, verbose = FALSE)
    t <- timed(DALEX::model_profile(ex, variables = vars, N = NULL, grid_points = 101))
    add("DALEX::model_profile", t)
  }
}
res <- do.call(rbind, out)
options(width = 200)
cat(sprintf("R %s; %s\n", getRversion(), format(Sys.time())))
print(res, row.names = FALSE)
