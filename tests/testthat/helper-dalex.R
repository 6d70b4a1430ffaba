# An lm with its DALEX explainer and grids, and aggregated profiles as
# sorted x and y, for the tests of R/dalex.R and R/dalex_rbind.R.

dalex_case <- function(weights = NULL, label = "lm") {
  d <- transform(mtcars, cyl = factor(cyl))
  fit <- lm(mpg ~ wt * hp + cyl, data = d)
  X <- d[c("wt", "hp", "cyl")]
  ex <- DALEX::explain(fit, data = X, y = d$mpg, label = label, weights = weights, verbose = FALSE)
  # Grids from the minimum to the maximum (the lm is linear in each
  # variable, so an observation's prediction is on its ICE curve).
  sp <- list(wt = seq(min(X$wt), max(X$wt), length.out = 6), hp = seq(min(X$hp), max(X$hp), length.out = 5))
  list(fit = fit, X = X, ex = ex, sp = sp)
}

agr_xy <- function(a) {
  a <- as.data.frame(structure(a, class = "data.frame"))
  a <- a[order(a$`_vname_`, as.character(a$`_label_`), a$`_x_`), ]
  list(v = as.character(a$`_vname_`), x = a$`_x_`, y = a$`_yhat_`)
}
