# A model that is wild off the diagonal x1 = x2, where the data are not:
# PD misleads there, AL does not (test-extrapolation.R, test-plot_support.R).
diagonal_case <- function() {
  set.seed(3)
  n <- 300
  x1 <- runif(n)
  d <- data.frame(x1 = x1, x2 = x1 + rnorm(n, sd = 0.05), x3 = runif(n))
  f <- function(m, newdata) newdata$x1 + newdata$x2 + newdata$x3 + 20 * (newdata$x1 - newdata$x2)^2
  list(d = d, f = f)
}
