# Missing values (as a level, in profiled variables and in predictions) and
# the support of each grid point: a cross-cutting suite.

test_that("support counts the background rows in each grid point's cell", {
  set.seed(41)
  X <- data.frame(a = runif(300, 0, 10), g = factor(sample(c("p", "q", "r"), 300, TRUE), levels = c("p", "q", "r", "s")))
  pf <- function(m, d) d$a + as.integer(d$g)
  grid <- c(0, 2.5, 5, 7.5, 10)
  res <- model_profile(NULL, X, predict_function = pf, variables = c("a", "g"),
                       variable_splits = list(a = c(grid, 20)))
  a <- res$agr_profiles
  sa <- a$`_support_`[a$`_vname_` == "a"]
  # Cells: [-1.25, 1.25), [1.25, 3.75), ..., [8.75, 15), [15, 25].
  br <- c(-1.25, 1.25, 3.75, 6.25, 8.75, 15, 25)
  expect_equal(sa, as.vector(table(cut(X$a, br, right = FALSE))))
  expect_equal(sum(sa), 300)
  expect_equal(sa[6], 0)
  expect_equal(a$`_support_`[a$`_vname_` == "g"], as.vector(table(droplevels(X$g))))
  # Unsorted user grids get the same cells.
  res2 <- model_profile(NULL, X, predict_function = pf, variables = "a",
                        variable_splits = list(a = c(20, grid[5:1])))
  expect_equal(res2$agr_profiles$`_support_`, sa[c(6, 5:1)])
  # LD and AL profiles, 2-D profiles and subgroups carry it too.
  ld <- model_profile(NULL, X, predict_function = pf, variables = "a", type = "conditional",
                      variable_splits = list(a = grid))
  expect_equal(ld$agr_profiles$`_support_`, as.vector(table(cut(X$a, br[1:6], right = FALSE, include.lowest = TRUE))))
  al <- model_profile(NULL, X, predict_function = pf, variables = "a", type = "accumulated", grid = profile_grids(intervals = 4))
  expect_equal(sum(al$agr_profiles$`_support_`), 300)
  p2 <- model_profile_2d(NULL, X, predict_function = pf, variables = c("a", "g"),
                         variable_splits = list(a = grid))
  s2 <- p2$agr_profiles
  expect_equal(s2$`_support_`, as.vector(table(cut(X$a, br[1:6], right = FALSE, include.lowest = TRUE), droplevels(X$g))))
  gr <- model_profile(NULL, X, predict_function = pf, variables = "a", groups = "g",
                      variable_splits = list(a = grid))
  expect_equal(gr$agr_profiles$`_support_`[gr$agr_profiles$`_groups_` == "q"],
               as.vector(table(cut(X$a[X$g == "q"], br[1:6], right = FALSE, include.lowest = TRUE))))
})

test_that("missing values of a categorical variable as their own level", {
  set.seed(42)
  X <- data.frame(a = rnorm(200), g = sample(c("p", "q", "r"), 200, TRUE), stringsAsFactors = TRUE)
  X$g[1:20] <- NA
  # A model that handles NA: its own effect for a missing g.
  pf <- function(m, d) d$a * 2 + ifelse(is.na(d$g), 5, as.integer(d$g))
  # By default NA rows are left out of LD/AL (with a warning) and NA is not a grid point.
  expect_warning(ld <- model_profile(NULL, X, predict_function = pf, variables = "g", type = "conditional"),
                 "20 missing values")
  expect_equal(ld$grids$g, c("p", "q", "r"))
  pd <- model_profile(NULL, X, predict_function = pf, variables = "g", grid = profile_grids(na_level = TRUE))
  expect_identical(pd$grids$g, c("p", "q", "r", NA))
  expect_equal(pd$agr_profiles$`_yhat_`, mean(X$a) * 2 + c(1, 2, 3, 5), tolerance = 1e-12)
  expect_equal(pd$agr_profiles$`_support_`, c(as.vector(table(X$g)), 20))
  ld <- model_profile(NULL, X, predict_function = pf, variables = "g", type = "conditional", grid = profile_grids(na_level = TRUE))
  expect_equal(ld$agr_profiles$`_yhat_`[4], mean(pf(NULL, X[1:20, ])), tolerance = 1e-12)
  al <- model_profile(NULL, X, predict_function = pf, variables = "g", type = "accumulated",
                      grid = profile_grids(na_level = TRUE, level_order = "levels"))
  # An additive model: the AL steps are the effects' differences; centred by
  # the level frequencies, shifted by the mean prediction.
  eff <- c(1, 2, 3, 5)
  freq <- c(as.vector(table(X$g)), 20) / 200
  expect_equal(al$agr_profiles$`_yhat_`, eff - sum(eff * freq) + mean(pf(NULL, X)), tolerance = 1e-12)
  expect_identical(al$grids$g, c("p", "q", "r", NA))
  # The similarity order places the NA level too.
  al2 <- model_profile(NULL, X, predict_function = pf, variables = "g", type = "accumulated", grid = profile_grids(na_level = TRUE))
  expect_setequal(al2$grids$g, c("p", "q", "r", NA))
  expect_equal(sort(al2$agr_profiles$`_yhat_`), sort(al$agr_profiles$`_yhat_`), tolerance = 1e-12)
  expect_s3_class(plot(pd), "ggplot")
  expect_error(model_profile(NULL, X, predict_function = pf, variables = "g", grid = profile_grids(na_level = NA)), "TRUE")
  # A numeric variable's missing values: PD uses the rows; LD/AL leave them out with a warning.
  X$a[1:7] <- NA
  pd <- model_profile(NULL, X, predict_function = function(m, d) ifelse(is.na(d$a), 0, d$a), variables = "a",
                      grid_points = 3)
  expect_equal(pd$agr_profiles$`_yhat_`, pd$grids$a)
  expect_warning(model_profile(NULL, X, predict_function = function(m, d) ifelse(is.na(d$a), 0, d$a),
                               variables = "a", type = "accumulated"), "7 missing values")
})
