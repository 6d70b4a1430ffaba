# PD vs LD vs AL distances.

test_that("distances: zero for an additive linear model, LD borrows a correlated effect", {
  set.seed(71)
  x1 <- runif(400)
  d <- data.frame(x1 = x1, x2 = x1 + rnorm(400, sd = 0.1), x3 = runif(400))
  f <- function(m, nd) 2 * nd$x1 - nd$x3
  cmp <- compare_profiles(NULL, d, predict_function = f, grid_points = 21, grid = profile_grids(intervals = 10))
  ds <- cmp$distances
  # Linear and additive: PD and AL are the same line.
  expect_equal(ds$pd_al, rep(0, 3), tolerance = 1e-12)
  # x2 is not in the model: PD and AL are flat; LD follows x1.
  expect_equal(ds$variable[1], "x2")
  expect_equal(ds$al_range[ds$variable == "x2"], 0)
  # The distance by hand: LD at the rows' values, centred, against a flat AL.
  ld <- cmp$profiles$ld
  a <- ld$agr_profiles[ld$agr_profiles$`_vname_` == "x2", ]
  g <- approx(a$`_x_`, a$`_yhat_`, d$x2, rule = 2)$y
  expect_equal(ds$ld_al[1], sqrt(mean((g - mean(g))^2)), tolerance = 1e-12)
  expect_equal(ds$pd_ld[1], ds$ld_al[1], tolerance = 1e-12)
  expect_gt(ds$ld_al[1], 0.3)
  expect_output(print(cmp), "ld_al")
  expect_s3_class(plot(cmp), "ggplot")
  pd <- ggplot2::layer_data(plot(cmp, geom = "distances"))
  expect_equal(nrow(pd), 9)
})

test_that("an interaction with a correlated variable separates PD from AL", {
  set.seed(72)
  x1 <- runif(500)
  d <- data.frame(x1 = x1, x2 = x1 + rnorm(500, sd = 0.05), g = factor(sample(c("a", "b"), 500, TRUE)))
  f <- function(m, nd) nd$x1 * nd$x2 + (nd$g == "a")
  cmp <- compare_profiles(NULL, d, predict_function = f, N = 300, seed = 1)
  ds <- cmp$distances
  expect_true(all(ds$pd_al[ds$variable != "g"] > 0.01))
  # The three profiles use the same rows.
  p <- cmp$profiles
  expect_identical(p$pd$rows, p$al$rows)
  expect_identical(p$pd$rows, p$ld$rows)
  # A factor's profiles are compared level by level: here they agree.
  expect_equal(ds$pd_al[ds$variable == "g"], 0, tolerance = 1e-12)
  expect_error(compare_profiles(NULL, d, predict_function = f, foo = 1), "Unknown argument")
})

test_that("integer weights equal replicated rows: distances and the three profiles", {
  set.seed(73)
  n <- 200
  x1 <- runif(n)
  d <- data.frame(x1 = x1, x2 = x1 + rnorm(n, sd = 0.1), g = factor(sample(c("a", "b", "c"), n, TRUE)))
  w <- sample(1:4, n, TRUE)
  dup <- d[rep(seq_len(n), w), ]
  f <- function(m, nd) nd$x1 * nd$x2 + (nd$g == "a") * nd$x1 + sin(3 * nd$x2)
  wt <- compare_profiles(NULL, d, predict_function = f, N = NULL, weights = w, grid_points = 15,
                         grid = profile_grids(intervals = 8))
  rp <- compare_profiles(NULL, dup, predict_function = f, N = NULL, grid_points = 15, grid = profile_grids(intervals = 8))
  expect_identical(wt$distances[c("variable", "label")], rp$distances[c("variable", "label")])
  for (k in c("pd_al", "ld_al", "pd_ld", "al_range")) {
    expect_equal(wt$distances[[k]], rp$distances[[k]], tolerance = 1e-12, label = k)
  }
  # (Not the extrapolation measure: a weight puts no copies of a row in its
  # own neighbourhood, see ?extrapolation.)
  no_ext <- function(a) a[setdiff(names(a), "_extrapolation_")]
  for (k in c("pd", "ld", "al")) {
    expect_equal(no_ext(wt$profiles[[k]]$agr_profiles), no_ext(rp$profiles[[k]]$agr_profiles), tolerance = 1e-12,
                 label = k)
    expect_equal(wt$profiles[[k]]$grids, rp$profiles[[k]]$grids, tolerance = 1e-12, label = k)
  }
  expect_equal(wt$profiles$ld$bandwidth, rp$profiles$ld$bandwidth, tolerance = 1e-12)
  # The profiles and distances are not trivial, and the weights matter:
  # without them every distance moves (the LD ones by 0.01 to 0.03).
  expect_true(all(wt$distances$ld_al > 0.05))
  expect_true(all(wt$distances$al_range > 0.5))
  un <- compare_profiles(NULL, d, predict_function = f, N = NULL, grid_points = 15, grid = profile_grids(intervals = 8))
  expect_true(all(abs(un$distances$ld_al - wt$distances$ld_al) > 0.005))
  # The weighted distance by hand, for x1: the profiles read at the rows'
  # values (linear interpolation), centred, weighted root-mean-square.
  at <- function(res) {
    a <- res$agr_profiles[res$agr_profiles$`_vname_` == "x1", ]
    approx(res$grids$x1, a$`_yhat_`, d$x1, rule = 2)$y
  }
  cen <- function(g) g - sum(w * g) / sum(w)
  dist <- function(g, h) sqrt(sum(w * (cen(g) - cen(h))^2) / sum(w))
  p <- lapply(wt$profiles, at)
  x1_row <- wt$distances[wt$distances$variable == "x1", ]
  expect_equal(x1_row$pd_al, dist(p$pd, p$al), tolerance = 1e-12)
  expect_equal(x1_row$ld_al, dist(p$ld, p$al), tolerance = 1e-12)
  expect_equal(x1_row$pd_ld, dist(p$pd, p$ld), tolerance = 1e-12)
})

# ---- Bootstrap bands of the distances ------------------------------------------

cmp_band_data <- function(n = 260, seed = 74) {
  set.seed(seed)
  x1 <- runif(n)
  data.frame(x1 = x1, x2 = x1 + rnorm(n, sd = 0.1), g = factor(sample(c("a", "b", "c"), n, TRUE)))
}
cmp_band_f <- function(m, nd) nd$x1 * nd$x2 + (nd$g == "a") * nd$x1 + sin(3 * nd$x2)

test_that("replicate distances are the distances between the replicate profiles, rows weighted by the counts", {
  d <- cmp_band_data()
  w <- rep(c(1, 2, 0, 0.5), length.out = nrow(d))
  B <- 12
  args <- list(NULL, d, predict_function = cmp_band_f, N = 150, seed = 4, weights = w,
               bands = profile_bands("bootstrap", B = B))
  cmp <- do.call(compare_profiles, c(args, grid_points = 11, list(grid = profile_grids(intervals = 6))))
  # The profiles with their replicates, from model_profile() with the same
  # draw (rows, then resamples).
  prof <- list(
    pd = do.call(model_profile, c(args, grid_points = 11)),
    ld = do.call(model_profile, c(args, type = "conditional", grid_points = 11)),
    al = do.call(model_profile, c(args, type = "accumulated", list(grid = profile_grids(intervals = 6))))
  )
  dr <- ref_draw(4, nrow(d), 150, B, w)
  for (k in names(prof)) {
    expect_identical(prof[[k]]$rows, dr$rows)
    expect_identical(cmp$profiles[[k]]$rows, dr$rows)
    expect_equal(cmp$profiles[[k]]$agr_profiles, prof[[k]]$agr_profiles, tolerance = 1e-12, label = k)
    expect_equal(cmp$profiles[[k]]$replicates, prof[[k]]$replicates, tolerance = 1e-12, label = k)
  }
  # The resamples are those of the written-out draw: PD replicates of x1
  # are the count-weighted means of its ICE values.
  Xb <- d[dr$rows, ]
  wb <- w[dr$rows]
  a <- prof$pd$agr_profiles
  # (`_x_` is character: the variables' scales are mixed.)
  z <- prof$pd$grids$x1
  ice <- vapply(z, function(v) cmp_band_f(NULL, transform(Xb, x1 = v)), numeric(nrow(Xb)))
  cw <- dr$counts * wb
  expect_equal(prof$pd$replicates[a$`_vname_` == "x1", ], t(ice) %*% cw / rep(colSums(cw), each = length(z)),
               tolerance = 1e-12)
  # Each replicate distance by hand.
  at <- function(res, v, b) {
    a <- res$agr_profiles
    i <- a$`_vname_` == v
    y <- res$replicates[i, b]
    if (v == "g") return(y[match(as.character(Xb$g), as.character(a$`_x_`[i]))])
    ok <- !is.na(y)
    approx(res$grids[[v]][ok], y[ok], Xb[[v]], rule = 2)$y
  }
  dist <- function(g, h, k) {
    ok <- !is.na(g) & !is.na(h)
    cen <- function(u) u - sum(k[ok] * u[ok]) / sum(k[ok])
    sqrt(sum(k[ok] * (cen(g) - cen(h))[ok]^2) / sum(k[ok]))
  }
  ds <- cmp$distances
  for (v in c("x1", "x2", "g")) {
    r <- which(ds$variable == v)
    for (b in seq_len(B)) {
      p <- lapply(prof, at, v = v, b = b)
      expect_equal(cmp$replicates$pd_al[r, b], dist(p$pd, p$al, cw[, b]), tolerance = 1e-10)
      expect_equal(cmp$replicates$ld_al[r, b], dist(p$ld, p$al, cw[, b]), tolerance = 1e-10)
      expect_equal(cmp$replicates$pd_ld[r, b], dist(p$pd, p$ld, cw[, b]), tolerance = 1e-10)
    }
  }
  # Percentile bands, each after its distance.
  for (k in c("pd_al", "ld_al", "pd_ld")) {
    q <- t(apply(cmp$replicates[[k]], 1, quantile, c(0.025, 0.975), names = FALSE))
    expect_equal(cbind(ds[[paste0(k, "_lower")]], ds[[paste0(k, "_upper")]]), q)
  }
  expect_named(ds, c("variable", "label", "pd_al", "pd_al_lower", "pd_al_upper", "ld_al", "ld_al_lower",
                     "ld_al_upper", "pd_ld", "pd_ld_lower", "pd_ld_upper", "al_range", "pd_al_extrapolated"))
  expect_identical(cmp$bands, list(type = "bootstrap", level = 0.95, B = 12L))
})

test_that("bands change no distance, make no prediction and do not depend on threads", {
  d <- cmp_band_data(200)
  made <- function(x) sum(vapply(x$profiles, `[[`, numeric(1), "n_predictions"))
  c0 <- compare_profiles(NULL, d, predict_function = cmp_band_f, grid_points = 9, grid = profile_grids(intervals = 5))
  c1 <- compare_profiles(NULL, d, predict_function = cmp_band_f, grid_points = 9, grid = profile_grids(intervals = 5),
                         bands = profile_bands("bootstrap", B = 20), seed = 2, threads = 1)
  c2 <- compare_profiles(NULL, d, predict_function = cmp_band_f, grid_points = 9, grid = profile_grids(intervals = 5),
                         bands = profile_bands("bootstrap", B = 20), seed = 2, threads = 2)
  expect_identical(c1$distances[names(c0$distances)], c0$distances)
  expect_identical(made(c1), made(c0))
  expect_identical(c1$replicates, c2$replicates)
  expect_identical(c1$distances, c2$distances)
  expect_null(c0$replicates)
  expect_null(c0$bands)
  expect_error(compare_profiles(NULL, d, predict_function = cmp_band_f, bands = "analytic"), "bands")
  expect_error(compare_profiles(NULL, d, predict_function = cmp_band_f, bands = profile_bands("bootstrap", B = 1)), "B")
  expect_output(print(c1), "95% percentile intervals over B = 20")
  # The dot chart draws each band as an error bar around its dot.
  p <- plot(c1, geom = "distances")
  eb <- ggplot2::layer_data(p, 1)
  pts <- ggplot2::layer_data(p, 2)
  expect_equal(nrow(eb), 9)
  expect_equal(sort(eb$xmin), sort(unlist(c1$distances[c("pd_al_lower", "ld_al_lower", "pd_ld_lower")])),
               tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(sort(paste(eb$y, eb$x)), sort(paste(pts$y, pts$x)))
  expect_length(plot(c1, geom = "distances", bands = FALSE)$layers, 1L)
  expect_s3_class(plot(c1), "ggplot")
})

test_that("warnings name the function, also when it is called through do.call()", {
  X <- data.frame(x1 = c(0, 0.1, 0.2, 5, 5.1, 5.2), x2 = c(1, 1.1, 1.2, 9, 9.1, 9.2))
  pf <- function(m, newdata) newdata$x1 - newdata$x2
  args <- list(NULL, X, pf, N = NULL, grid_points = 5, bandwidth = c(x1 = 0.05, x2 = 0.05))
  w <- tryCatch(do.call(compare_profiles, args), warning = function(w) w)
  expect_s3_class(w, "modelprofiles_no_support")
  expect_identical(conditionCall(w)[[1L]], as.name("compare_profiles"))
  expect_match(paste(deparse(conditionCall(w)), collapse = " "), "^compare_profiles\\(")
  w2 <- tryCatch(do.call(model_profile, c(args, type = "conditional")), warning = function(w) w)
  expect_identical(conditionCall(w2)[[1L]], as.name("model_profile"))
  # Called by name, the call is the user's.
  w3 <- tryCatch(compare_profiles(NULL, X, pf, N = NULL, grid_points = 5,
                                  bandwidth = c(x1 = 0.05, x2 = 0.05)), warning = function(w) w)
  expect_identical(conditionCall(w3)[[1L]], as.name("compare_profiles"))
})
