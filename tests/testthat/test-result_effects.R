# The mp_effects class (R/result_effects.R): its constructor and print().

test_that("effect_sizes() results round-trip through new_mp_effects()", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  for (eff in list(effect_sizes(model_profile(fit, X, type = "accumulated")),
                   effect_sizes(model_profile(fit, X, bands = profile_bands("bootstrap", B = 10), seed = 1)))) {
    tab <- eff
    attributes(tab) <- attributes(eff)[c("names", "row.names")]
    class(tab) <- "data.frame"
    expect_identical(new_mp_effects(tab, attr(eff, "type"), attr(eff, "level"), attr(eff, "band_type"),
                                    attr(eff, "normalised")), eff)
  }
  expect_identical(attr(eff, "level"), 0.95)
  expect_identical(attr(eff, "band_type"), "bootstrap")
})

test_that("a table without the fields print() reads is an internal error", {
  tab <- data.frame(variable = "x", label = "m", kind = "numeric", importance = 0.5)
  expect_error(new_mp_effects(tab[1:3], "partial"), "lacks importance")
  expect_error(new_mp_effects(as.list(tab), "partial"), "plain data frame")
  expect_error(new_mp_effects(tab, c("partial", "accumulated")), "one type")
  expect_error(new_mp_effects(tab, "partial", level = 0.9), "band type")
  expect_error(new_mp_effects(tab, "partial", normalised = NA), "normalised")
  x <- new_mp_effects(tab, "partial")
  expect_s3_class(x, "mp_effects")
  expect_null(attr(x, "level"))
  expect_identical(x$importance, 0.5)
})

test_that("print() shows each statistic to `digits` significant digits", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  pd <- model_profile(fit, mtcars[c("wt", "hp")], grid_points = 5)
  eff <- effect_sizes(pd)
  # The PD of a linear term is b x + c: its importance is |b| sd(grid).
  for (v in c("wt", "hp")) {
    expect_equal(eff$importance[eff$variable == v], abs(coef(fit)[[v]]) * sd(pd$grids[[v]]), tolerance = 1e-12)
  }
  out <- capture.output(print(eff, digits = 3))
  expect_match(out[1], "^Effect sizes of partial-dependence profiles")
  line <- out[grepl("^\\s*wt ", out)]
  expect_equal(as.numeric(sub("^\\s*wt\\s+", "", line)), signif(eff$importance[eff$variable == "wt"], 3))
})

test_that("print() and summary() show the importance with its percentile band of the replicate curves", {
  set.seed(4)
  d <- data.frame(x1 = runif(150), x2 = runif(150))
  f <- function(m, newdata) sin(3 * newdata$x1) + newdata$x2
  p <- model_profile(NULL, d, f, N = NULL, grid_points = 9, bands = profile_bands("bootstrap", B = 30), seed = 1)
  old <- options(width = 400)
  on.exit(options(old))
  eff <- effect_sizes(p)
  printed <- capture.output(print(eff))
  summ <- capture.output(print(summary(p)))
  expect_match(summ[1], "95% percentile bands")
  for (v in c("x1", "x2")) {
    idx <- which(p$agr_profiles$`_vname_` == v)
    imp <- apply(p$replicates[idx, ], 2, sd)
    lim <- quantile(imp, c(0.025, 0.975), type = 7, names = FALSE)
    expect_equal(eff$importance_lower[eff$variable == v], lim[1])
    expect_equal(eff$importance_upper[eff$variable == v], lim[2])
    for (out in list(printed, summ)) {
      line <- out[grepl(paste0("^\\s*", v, " "), out)]
      nums <- as.numeric(regmatches(line, gregexpr("-?[0-9]+\\.?[0-9]*(e-?[0-9]+)?", line))[[1]])
      expect_true(any(abs(nums - signif(lim[1], 4)) <= 1e-12), info = v)
      expect_true(any(abs(nums - signif(lim[2], 4)) <= 1e-12), info = v)
    }
  }
})
