# The mp_regions class (R/result_regions.R): its constructor and methods.

test_that("find_regions() results round-trip through new_mp_regions()", {
  set.seed(1)
  d <- data.frame(x1 = runif(300, -1, 1), x2 = runif(300, -1, 1))
  f <- function(m, newdata) newdata$x1 * sign(newdata$x2)
  r <- find_regions(NULL, d, f, variables = "x1", grid_points = 5)
  expect_identical(new_mp_regions(unclass(r)), r)
  expect_error(new_mp_regions(list(agr_profiles = r$agr_profiles)), "internal error: an mp_regions lacks splits")
  expect_error(new_mp_regions(r), "plain list")
})

test_that("mp_regions prints with cli and draws by autoplot(), which plot() calls", {
  set.seed(1)
  d <- data.frame(x1 = runif(300, -1, 1), x2 = runif(300, -1, 1))
  f <- function(m, newdata) newdata$x1 * sign(newdata$x2)
  r <- find_regions(NULL, d, f, variables = "x1", grid_points = 5)
  out <- capture.output(print(r))
  expect_match(out[1L], "^<mp_regions> .*: regions of 1 variable \\(300 background rows, splits 2 deep at most\\)$")
  expect_identical(out[2L], "")
  expect_match(out[3L], "^x1: heterogeneity .* of the curves' variation\\); 2 regions explain 100.0% of it\\.$")
  expect_match(out[4L], "^  \\[all rows\\] split on x2 <= .* explained$")
  expect_length(out, 4L)
  p <- ggplot2::autoplot(r)
  expect_s3_class(p, "ggplot")
  expect_identical(ggplot2::layer_data(plot(r), 2L), ggplot2::layer_data(p, 2L))
  expect_identical(nrow(ggplot2::layer_data(p, 2L)), nrow(r$agr_profiles))
})

regions_fixture <- function() {
  set.seed(3)
  n <- 400
  d <- data.frame(x1 = runif(n, -1, 1), x2 = runif(n, -1, 1), x3 = runif(n, -1, 1))
  f <- function(m, newdata) newdata$x1 * sign(newdata$x2) + 2 * newdata$x3 * (newdata$x1 > 0.3)
  list(d = d, f = f, r = find_regions(NULL, d, f, N = NULL, grid_points = 11))
}

test_that("the regions chart: a panel per variable, its regions numbered and described in its strip (row 1)", {
  fx <- regions_fixture()
  r <- fx$r
  p <- plot(r)
  b <- ggplot2::ggplot_build(p)
  # One panel per variable, no shared legend.
  expect_identical(nrow(b$layout$layout), length(r$variables))
  expect_identical(p$theme$legend.position, "none")
  strips <- levels(p$data$`_vname_`)
  for (i in seq_along(r$variables)) {
    v <- r$variables[i]
    reg <- r$regions[r$regions$variable == v, ]
    lines <- strsplit(strips[i], "\n", fixed = TRUE)[[1]]
    expect_identical(lines[1], v)
    # Each region by number, description and rows (wrapped to the panel).
    text <- paste(sub("^ +", "", lines[-1]), collapse = " ")
    expect_identical(text, paste0(seq_len(nrow(reg)), ": ", reg$region, " (", reg$n, " rows)", collapse = " "))
    expect_true(all(nchar(lines) <= 48))
  }
  # Each region's number at the right end of its profile.
  ends <- p$layers[[3]]$data
  expect_identical(nrow(ends), nrow(r$regions))
  a <- r$agr_profiles
  for (k in seq_len(nrow(ends))) {
    rows <- a[a$`_vname_` == r$regions$variable[k] & a$`_region_` == ends$`_region_`[k], ]
    expect_equal(ends$`_x_`[k], max(rows$`_x_`))
  }
  expect_match(p$labels$subtitle, "95% analytic band")
  expect_doppelganger("regions", p)
})

test_that("split values are printed to the digits that keep every row on its side (row 1)", {
  # (0.1235 is above the upper value, 0.12345 below the lower.)
  expect_identical(split_value_text(1, 0.123451, 0.123459), "0.123455")
  expect_identical(split_value_text(1, -0.000465, -0.000464), "-0.0004645")
  expect_identical(split_value_text(1, 0.1, 0.5), "0.3")
  expect_identical(split_value_text(1, 1000001, 1000002), "1000001.5")
  day <- as.Date("2020-03-04")
  expect_identical(split_value_text(day, as.double(day), as.double(day) + 3), "2020-03-04")
  # Applied to the data, each printed rule gives the split's rows.
  fx <- regions_fixture()
  sp <- fx$r$splits
  for (i in seq_len(nrow(sp))) {
    if (sp$region[i] != "all rows") next
    cut <- as.numeric(sub(".*<= ", "", sp$rule[i]))
    expect_identical(sum(fx$d[[sp$split_variable[i]]] <= cut), sp$n_left[i])
  }
})

test_that("a result gives each region's rows (row 1)", {
  fx <- regions_fixture()
  r <- fx$r
  m <- r$membership
  expect_named(m, c("variable", "_ids_", "_region_", "region"))
  for (v in r$variables) {
    mv <- m[m$variable == v, ]
    expect_identical(sort(mv$`_ids_`), seq_len(nrow(fx$d)))
    reg <- r$regions[r$regions$variable == v, ]
    expect_identical(as.vector(table(factor(mv$region, levels = reg$region))), reg$n)
  }
  # x1's regions are x2's sides of its cut (y = x1 sign(x2) + ...).
  m1 <- m[m$variable == "x1", ]
  sp <- r$splits[r$splits$variable == "x1" & r$splits$region == "all rows", ]
  cut <- as.numeric(sub(".*<= ", "", sp$rule))
  left <- m1$`_ids_`[startsWith(m1$region, paste("x2 <=", format(cut)))]
  expect_setequal(left, which(fx$d$x2 <= cut))
  # The sampled rows are the data's rows.
  rs <- find_regions(NULL, fx$d, fx$f, variables = "x1", N = 100, seed = 1, grid_points = 5)
  expect_true(all(rs$membership$`_ids_` %in% seq_len(nrow(fx$d))))
  expect_identical(length(unique(rs$membership$`_ids_`)), 100L)
})

test_that("by default the chart draws the variables with regions, at most four, and names the others (row 1)", {
  set.seed(4)
  d <- data.frame(x1 = runif(300, -1, 1), x2 = runif(300, -1, 1), x4 = runif(300))
  f <- function(m, newdata) newdata$x1 * sign(newdata$x2) + newdata$x4
  r <- find_regions(NULL, d, f, N = NULL, grid_points = 7)
  expect_identical(r$summary$regions[r$summary$variable == "x4"], 1L)
  p <- plot(r)
  drawn <- unique(as.character(r$agr_profiles$`_vname_`[r$summary$regions[match(r$agr_profiles$`_vname_`,
                                                                                 r$summary$variable)] > 1L]))
  expect_identical(sub("\n.*", "", levels(p$data$`_vname_`)), drawn)
  expect_identical(p$labels$caption, "No split worth reporting: x4")
  # Asked for, a variable without regions is drawn.
  expect_identical(sub("\n.*", "", levels(plot(r, variables = "x4")$data$`_vname_`)), "x4")
  # More variables with regions than panels: those whose regions explain
  # most, and the others named.
  many <- r
  many$variables <- paste0("v", 1:6)
  many$summary <- data.frame(variable = many$variables, heterogeneity = 1, share_of_variation = 0.5,
                             explained = c(0.1, 0.9, 0.5, 0.7, 0.2, 0.8), regions = 2L)
  got <- regions_drawn(many)
  expect_identical(got$variables, c("v2", "v3", "v4", "v6"))
  expect_identical(got$note, "Not drawn (draw with variables =): v1, v5")
})

test_that("a factor among the variables: numeric ones drawn as lines, categorical ones on their own as points (trial 1)", {
  # (Once "Discrete value supplied to continuous scale": `_x_` of a result
  # with a factor is character.)
  set.seed(2)
  n <- 300
  d <- data.frame(x1 = runif(n, -1, 1), x2 = runif(n, -1, 1), g = factor(sample(c("a", "b", "c"), n, TRUE)))
  f <- function(m, nd) nd$x1 * sign(nd$x2) + 2 * (nd$g == "b") * (nd$x2 > 0)
  r <- find_regions(NULL, d, f, N = NULL, grid_points = 5)
  expect_type(r$agr_profiles$`_x_`, "character")
  p <- plot(r)
  lines <- ggplot2::layer_data(p, 2L)
  a <- r$agr_profiles[r$agr_profiles$`_vname_` %in% c("x1", "x2"), ]
  expect_equal(sort(lines$x), sort(as.numeric(a$`_x_`)))
  expect_identical(levels(p$data$`_vname_`)[1], paste0("x1\n1: x2 <= 0.000304 (145 rows)\n2: x2 > 0.000304 (155 rows)"))
  expect_identical(p$labels$caption, "Categorical (draw them on their own with variables =): g")
  # The factor alone: a point per level and region at its profile's value,
  # with its band, not joined.
  pg <- plot(r, variables = "g")
  pts <- ggplot2::layer_data(pg, 2L)
  ag <- r$agr_profiles[r$agr_profiles$`_vname_` == "g", ]
  expect_identical(nrow(pts), nrow(ag))
  expect_equal(pts$y, ag$`_yhat_`[order(ag$`_region_`, ag$`_x_`)])
  # (Region 2, x2 > 0, level b: 2 more, from the model's formula.)
  expect_equal(pts$y[5] - pts$y[4], 2, tolerance = 1e-12)
  expect_equal(ggplot2::layer_data(pg, 1L)$ymax, ag$`_upper_`[order(ag$`_region_`, ag$`_x_`)])
  expect_false(any(vapply(pg$layers, function(l) inherits(l$geom, "GeomLine"), logical(1))))
  expect_doppelganger("regions-factor", pg)
})
