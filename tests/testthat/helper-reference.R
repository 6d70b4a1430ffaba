# Plain-R reference implementations of the estimators, written from the
# formulas (eqs. 17.2, 18.4, 18.5, 18.8, 18.9 of Biecek & Burzykowski) and
# ALEPlot's algorithm, independently of the package's code.

ref_ice <- function(f, X, v, z) {
  sapply(z, function(zz) {
    Xz <- X
    Xz[[v]] <- zz
    f(Xz)
  })
} # n x G

ref_pd <- function(f, X, v, z) colMeans(ref_ice(f, X, v, z))

ref_ld_kernel <- function(f, X, v, z, s) {
  ice <- ref_ice(f, X, v, z)
  sapply(seq_along(z), function(g) {
    w <- stats::dnorm(z[g] - X[[v]], 0, s)
    sum(w * ice[, g]) / sum(w)
  })
}

ref_edges <- function(x, K) {
  unique(c(min(x), as.numeric(stats::quantile(x, seq(1 / K, 1, length.out = K), type = 1))))
}

ref_ld_interval <- function(f, X, v, z, K) {
  e <- ref_edges(X[[v]], K)
  kx <- as.numeric(cut(X[[v]], breaks = e, include.lowest = TRUE))
  kz <- as.numeric(cut(z, breaks = e, include.lowest = TRUE))
  sapply(seq_along(z), function(g) {
    Xi <- X[kx == kz[g], , drop = FALSE]
    Xi[[v]] <- z[g]
    mean(f(Xi))
  })
}

# Each row's interval k among edges z (the minimum in the first) and its
# local effect d = f at the interval's upper edge - f at its lower edge.
ref_local_effects <- function(f, X, v, z) {
  k <- as.numeric(cut(X[[v]], breaks = z, include.lowest = TRUE))
  X1 <- X
  X2 <- X
  X1[[v]] <- z[k]
  X2[[v]] <- z[k + 1]
  list(k = k, d = f(X2) - f(X1))
}

# ALEPlot's algorithm for a numeric variable, without the shift.
ref_al <- function(f, X, v, K) {
  z <- ref_edges(X[[v]], K)
  K <- length(z) - 1
  le <- ref_local_effects(f, X, v, z)
  a1 <- le$k
  delta <- as.numeric(tapply(le$d, a1, mean))
  fJ <- c(0, cumsum(delta))
  b1 <- as.numeric(table(a1))
  fJ <- fJ - sum((fJ[1:K] + fJ[2:(K + 1)]) / 2 * b1) / sum(b1)
  list(x = z, f = fJ)
}

# Eq. 18.9 on an even grid z_0 < ... < z_G-1 with Gaussian weights at z_k.
ref_al_kernel <- function(f, X, v, G, s) {
  x <- X[[v]]
  z <- seq(min(x), max(x), length.out = G)
  ice <- ref_ice(f, X, v, z)
  inc <- sapply(2:G, function(k) {
    w <- stats::dnorm(z[k] - x, 0, s)
    sum(w * (ice[, k] - ice[, k - 1])) / sum(w)
  })
  g <- c(0, cumsum(inc))
  g <- g - mean(stats::approx(z, g, x)$y)
  list(x = z, f = g)
}

# The eight observations of Table 18.4 and model (18.10).
table184 <- function() {
  X <- data.frame(x1 = c(-1, -0.71, -0.43, -0.14, 0.14, 0.43, 0.71, 1))
  X$x2 <- X$x1
  X
}
f184 <- function(model, newdata) (newdata$x1 + 1) * newdata$x2

profile_of <- function(res, v = res$variables[1]) {
  a <- res$agr_profiles
  a[a$`_vname_` == v, ]
}
