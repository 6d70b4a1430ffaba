# ICE curves kept compactly (R/result_ice.R): an mp_ice that reads like
# DALEX's long cp_profiles frame, made only from what is asked for and
# never kept, equal to the curves the predict() path gives.

# (The DALEX columns are tested here; the points' `_extrapolation_` column, in
# test-extrapolation.R.)
withr::local_options(modelprofiles.extrapolation = FALSE)

ice_data <- function(n = 300) {
  set.seed(11)
  X <- data.frame(a = rnorm(n), b = runif(n), f = factor(sample(c("u", "v", "w"), n, TRUE)))
  X$y <- X$a * X$b + (X$f == "v") + rnorm(n)
  X
}

# The long frame of the ICE curves of `res` computed independently: the
# model's predict() at each curve point, in DALEX's order (variable, row,
# grid point); `_x_` as character when `chr`.
ref_long <- function(fit, X, res, chr = FALSE, type = "response") {
  out <- do.call(rbind, lapply(res$variables, function(v) {
    g <- res$grids[[v]]
    ids <- res$rows
    nd <- X[rep(ids, each = length(g)), , drop = FALSE]
    nd[[v]] <- if (is.factor(X[[v]])) factor(rep(as.character(g), length(ids)), levels(X[[v]])) else rep(g, length(ids))
    data.frame(`_vname_` = v, `_label_` = res$label, `_ids_` = rep(ids, each = length(g)),
               `_x_` = rep(if (chr) as.character(g) else g, length(ids)),
               `_yhat_` = unname(predict(fit, nd, type = type)),
               check.names = FALSE, stringsAsFactors = FALSE)
  }))
  rownames(out) <- NULL
  out
}

test_that("the compact curves read like the long frame, made each time and never kept", {
  D <- ice_data()
  fit <- lm(y ~ a * b + f, data = D)
  X <- D[c("a", "b", "f")]
  lin <- model_profile(fit, X, N = NULL, grid_points = 7)
  ref <- model_profile(fit, X, N = NULL, grid_points = 7, engine = "predict")
  ice <- .subset2(lin, "cp_profiles")
  expect_s3_class(ice, c("mp_ice", "data.frame"), exact = TRUE)
  expect_true(is.data.frame(ice))
  expect_named(ice, c("_vname_", "_label_", "_ids_", "_x_", "_yhat_", "a", "b", "f"))
  # print() counts the points without making the frame.
  expect_output(print(lin), "ICE curves: 5,100 rows in \\$cp_profiles \\(kept compactly")
  # $cp_profiles is the field itself: no method of the result makes it.
  expect_identical(lin$cp_profiles, ice)
  expect_identical(lin[["cp_profiles"]], ice)
  cp <- as.data.frame(lin$cp_profiles)
  expect_identical(class(cp), "data.frame")
  expect_identical(names(cp), c("_vname_", "_label_", "_ids_", "_x_", "_yhat_", "a", "b", "f"))
  expect_identical(cp[-5], as.data.frame(ref$cp_profiles)[-5])
  expect_equal(cp$`_yhat_`, ref$cp_profiles$`_yhat_`, tolerance = 1e-13)
  # An independent computation: the model's predict() at each curve point.
  expect_equal(cp[1:5], ref_long(fit, X, lin, chr = TRUE), tolerance = 1e-13)
  # ingredients' wide columns: the grid value on the variable's own
  # curves, the row's own value on the others'.
  for (v in c("a", "b", "f")) {
    own <- cp$`_vname_` == v
    expect_identical(as.character(cp[[v]][own]), cp$`_x_`[own])
    expect_identical(cp[[v]][!own], X[[v]][cp$`_ids_`[!own]])
  }
  obs <- attr(lin$cp_profiles, "observations")
  expect_identical(rownames(obs), as.character(lin$rows))
  expect_equal(obs$`_yhat_`, unname(predict(fit, D)), tolerance = 1e-12)
  # Each way of asking gives the same frame, made anew.
  expect_identical(as.data.frame(lin, what = "cp_profiles"), cp)
  expect_identical(as.data.frame(lin$cp_profiles), cp)
  expect_identical(lin$cp_profiles[], cp)
  expect_identical(.subset2(lin, "cp_profiles"), ice)
  # The profiles are the means of the curves.
  pd <- tapply(cp$`_yhat_`, paste(cp$`_vname_`, cp$`_x_`), mean)
  agr <- lin$agr_profiles
  expect_equal(as.vector(pd[paste(agr$`_vname_`, agr$`_x_`)]), agr$`_yhat_`, tolerance = 1e-13)
})

test_that("every data-frame method of mp_ice agrees with the long frame computed by predict()", {
  D <- ice_data(40)
  fit <- lm(y ~ a * b + f, data = D)
  X <- D[c("a", "b", "f")]
  for (engine in c("auto", "predict")) {
    res <- model_profile(fit, X, N = NULL, grid_points = 5, engine = engine)
    cp <- res$cp_profiles
    expect_s3_class(cp, "mp_ice")
    L <- ref_long(fit, X, res, chr = TRUE)
    long <- as.data.frame(cp)
    expect_identical(class(long), "data.frame")
    expect_equal(long[1:5], L, tolerance = 1e-12)
    # Shape and names: DALEX's long columns, then ingredients' wide ones.
    wide <- c(names(L), "a", "b", "f")
    expect_identical(dim(cp), c(nrow(L), 8L))
    expect_identical(nrow(cp), nrow(L))
    expect_identical(ncol(cp), 8L)
    expect_identical(NROW(cp), nrow(L))
    expect_identical(names(cp), wide)
    expect_identical(colnames(cp), wide)
    expect_identical(length(cp), 8L)
    expect_true(is.data.frame(cp))
    # Columns.
    for (nm in names(L)) {
      expect_equal(cp[[nm]], L[[nm]], tolerance = 1e-12, info = nm)
      expect_identical(cp[[nm]], long[[nm]], info = nm)
      expect_identical(eval(call("$", cp, nm)), long[[nm]], info = nm)
    }
    expect_identical(cp[[4]], long[[4]])
    expect_equal(cp$`_yhat_`, L$`_yhat_`, tolerance = 1e-12)
    expect_identical(unique(cp$`_vname_`), c("a", "b", "f"))
    expect_identical(unique(cp$`_ids_`), 1:40)
    expect_null(cp$nope)
    expect_null(cp[["nope"]])
    # Rows and columns, as a data frame's `[` gives them (row names too).
    rows <- list(cp$`_vname_` == "b", L$`_vname_` == "f" & L$`_ids_` > 30, c(7, 3, 3, 500), -(1:100),
                 c(TRUE, FALSE, NA), c(2, NA), integer(), "17", nrow(L))
    for (k in seq_along(rows)) {
      i <- rows[[k]]
      expect_equal(cp[i, 1:5], L[i, ], tolerance = 1e-12, info = k)
      expect_identical(cp[i, ], long[i, ], info = k)
      expect_identical(cp[i, c("_ids_", "_yhat_")], long[i, c("_ids_", "_yhat_")], info = k)
      expect_identical(cp[i, "_yhat_"], long[i, "_yhat_"], info = k)
      expect_identical(cp[i, 5, drop = FALSE], long[i, 5, drop = FALSE], info = k)
    }
    expect_identical(cp["_yhat_"], long["_yhat_"])
    expect_identical(cp[c(4, 1)], long[c(4, 1)])
    expect_identical(cp[, "_x_"], long[, "_x_"])
    expect_identical(cp[, c("_x_", "_yhat_")], long[, c("_x_", "_yhat_")])
    expect_identical(cp[, -2], long[, -2])
    expect_error(cp[, "nope"], "undefined columns")
    # subset(), with(), head(), tail().
    expect_identical(subset(cp, `_vname_` == "a" & `_yhat_` > 1, select = c(`_ids_`, `_yhat_`)),
                     subset(long, `_vname_` == "a" & `_yhat_` > 1, select = c(`_ids_`, `_yhat_`)))
    expect_equal(subset(cp, `_vname_` == "a" & `_ids_` %in% c(3, 9), 1:5),
                 subset(L, `_vname_` == "a" & `_ids_` %in% c(3, 9)), tolerance = 1e-12)
    expect_identical(subset(cp, select = -`_label_`), subset(long, select = -`_label_`))
    expect_identical(subset(cp, `_ids_` == 5, `_yhat_`, drop = TRUE), subset(long, `_ids_` == 5, `_yhat_`, drop = TRUE))
    expect_equal(with(cp, tapply(`_yhat_`, `_vname_`, mean)), with(L, tapply(`_yhat_`, `_vname_`, mean)),
                 tolerance = 1e-12)
    expect_identical(head(cp), head(long))
    expect_identical(head(cp, 10), head(long, 10))
    expect_identical(head(cp, -(nrow(L) - 3)), head(long, -(nrow(L) - 3)))
    expect_identical(tail(cp), tail(long))
    expect_identical(tail(cp, 3), tail(long, 3))
    expect_equal(head(cp, 8)[1:5], head(L, 8), tolerance = 1e-12)
    # As a list, and through lapply()/vapply().
    expect_identical(as.list(cp), as.list(long))
    expect_identical(vapply(cp, function(col) class(col)[1L], ""), vapply(long, function(col) class(col)[1L], ""))
    # Binding, splitting, unique rows and ggplot() as of the long frame.
    # (rbind() keeps ingredients' "observations", which its aggregates read.)
    with_obs <- function(d) structure(d, observations = attr(cp, "observations"))
    expect_identical(rbind(cp, cp), with_obs(rbind(long, long)))
    expect_identical(rbind(cp, long[1:3, ]), with_obs(rbind(long, long[1:3, ])))
    expect_identical(do.call(rbind, list(cp, cp)), with_obs(rbind(long, long)))
    expect_identical(split(cp, cp$`_vname_`), split(long, long$`_vname_`))
    expect_equal(split(cp, cp$`_vname_`)$b[1:5], L[L$`_vname_` == "b", ], tolerance = 1e-12)
    expect_identical(unique(cp), unique(long))
    expect_identical(unique(cp[c("_vname_", "_label_")]), unique(L[c("_vname_", "_label_")]))
    expect_identical(ggplot2::ggplot(cp, ggplot2::aes(`_x_`, `_yhat_`))$data, long)
    expect_equal(merge(cp, data.frame(`_vname_` = "a", k = 1, check.names = FALSE))[c(1:5, 9)],
                 merge(L, data.frame(`_vname_` = "a", k = 1, check.names = FALSE)), tolerance = 1e-12)
    # Code that reads a data frame's columns directly (model frames,
    # aggregate(), transform(), dplyr).
    a_rows <- L$`_vname_` == "a"
    expect_equal(coef(lm(`_yhat_` ~ `_ids_`, data = cp)), coef(lm(`_yhat_` ~ `_ids_`, data = L)), tolerance = 1e-10)
    expect_equal(aggregate(`_yhat_` ~ `_vname_`, data = cp, FUN = mean),
                 aggregate(`_yhat_` ~ `_vname_`, data = L, FUN = mean), tolerance = 1e-12)
    expect_equal(transform(cp, z = `_yhat_` * 2)$z, L$`_yhat_` * 2, tolerance = 1e-12)
    if (requireNamespace("dplyr", quietly = TRUE)) {
      f <- dplyr::filter(cp, `_vname_` == "a")
      expect_equal(as.data.frame(f)[1:5], `rownames<-`(L[a_rows, ], NULL), tolerance = 1e-12)
      expect_equal(dplyr::summarise(dplyr::group_by(cp, `_vname_`), m = mean(`_yhat_`))$m,
                   as.vector(tapply(L$`_yhat_`, L$`_vname_`, mean)), tolerance = 1e-12)
    }
    # Comparisons are of the plain frames.
    expect_true(isTRUE(all.equal(cp, long)))
    expect_equal(cp, long)
    # Assigning into it gives the long frame, modified.
    cp2 <- cp
    cp2$`_yhat_` <- 0
    expect_identical(class(cp2), "data.frame")
    expect_identical(cp2[-5], long[-5])
    expect_identical(cp$`_yhat_`, long$`_yhat_`)
    expect_identical(cp2$`_yhat_`, rep(0, nrow(L)))
    cp3 <- cp
    cp3[1:2, "_yhat_"] <- NA
    long3 <- long
    long3[1:2, "_yhat_"] <- NA
    expect_identical(cp3, long3)
    cp4 <- cp
    cp4[["_label_"]] <- "m"
    expect_identical(unique(cp4$`_label_`), "m")
    cp5 <- cp
    names(cp5) <- toupper(names(cp5))
    expect_identical(names(cp5), toupper(wide))
    # The description is a table of the curves, not of the points.
    s <- summary(cp)
    expect_identical(s$variable, c("a", "b", "f"))
    expect_identical(s$curves, c(40L, 40L, 40L))
    expect_identical(sum(s$points), as.double(nrow(L)))
    expect_output(print(cp), "ICE curves of 3 variables \\(a, b, f\\): 120 curves, 520 points")
    expect_output(str(cp), "'mp_ice': ICE curves read as 520 obs. of 8 variables")
    # The object itself was never changed.
    expect_identical(cp, .subset2(res, "cp_profiles"))
  }
})

test_that("reading a result leaves it unchanged, byte for byte", {
  D <- ice_data(60)
  D$z <- as.integer(D$y > 0.3)
  X <- D[c("a", "b", "f")]
  fit <- lm(y ~ a * b + f, data = D)
  gfit <- glm(z ~ a * b, data = D, family = binomial)
  results <- list(
    linear = model_profile(fit, X, N = NULL, grid_points = 5),
    predict = model_profile(fit, X, N = NULL, grid_points = 5, engine = "predict"),
    glm = model_profile(gfit, X[c("a", "b")], N = NULL, grid_points = 5),
    groups = model_profile(fit, X, variables = c("a", "b"), N = NULL, grid_points = 5, groups = "f"),
    clusters = model_profile(fit, X, variables = c("a", "b"), N = NULL, grid_points = 5, k = 2),
    black_box = model_profile(NULL, X[c("a", "b")], function(m, nd) sin(nd$a) * nd$b, N = NULL, grid_points = 4)
  )
  plot_to_null <- function(p) {
    grDevices::pdf(NULL)
    on.exit(grDevices::dev.off())
    print(p)
  }
  reads <- list(
    print = function(x) capture.output(print(x)),
    str = function(x) capture.output(str(x)),
    summary = function(x) capture.output(print(summary(x))),
    cp_profiles = function(x) x$cp_profiles,
    cp_profiles2 = function(x) x[["cp_profiles"]],
    cp_column = function(x) unique(x$cp_profiles$`_vname_`),
    cp_rows = function(x) x$cp_profiles[1:10, ],
    cp_subset = function(x) subset(x$cp_profiles, `_ids_` == x$rows[1]),
    cp_head = function(x) head(x$cp_profiles),
    cp_dim = function(x) c(nrow(x$cp_profiles), dim(x$cp_profiles), names(x$cp_profiles)),
    cp_print = function(x) capture.output(print(x$cp_profiles), str(x$cp_profiles), summary(x$cp_profiles)),
    as_data_frame = function(x) as.data.frame(x, what = "cp_profiles"),
    as_data_frame_ice = function(x) as.data.frame(x$cp_profiles),
    plot = function(x) suppressMessages(plot_to_null(plot(x))),
    plot_profiles = function(x) suppressMessages(plot_to_null(plot(x, geom = "profiles"))),
    as_dalex = function(x) suppressMessages(as_dalex(x)),
    save_rds = function(x) {
      f <- tempfile(fileext = ".rds")
      on.exit(unlink(f))
      saveRDS(x, f)
      readRDS(f)
    }
  )
  for (r in names(results)) {
    x <- results[[r]]
    s0 <- serialize(x, NULL)
    size0 <- utils::object.size(x)
    for (k in names(reads)) {
      y <- reads[[k]](x)
      expect_identical(serialize(x, NULL), s0, label = paste(r, k))
    }
    expect_identical(utils::object.size(x), size0, label = r)
    # A saved and read copy serialises to the same bytes.
    expect_identical(serialize(reads$save_rds(x), NULL), s0, label = r)
    # No environment (a place to keep things) inside the result.
    has_env <- function(o) is.environment(o) || (is.list(o) && any(vapply(unclass(o), has_env, logical(1))))
    expect_false(has_env(x), label = r)
  }
})

test_that("str() and print() of a large result stay small: the long frame is never made", {
  # A block of 3 * 10^9 points (more than a data frame holds), never
  # materialised: its row ids are a compact sequence and its values unread.
  ice <- new_mp_ice(list(ice_block("a", "m", seq_len(3e7), as.double(1:101), NULL)))
  expect_identical(dim(ice), c(3.03e9, 5))
  expect_identical(nrow(ice), 3.03e9)
  expect_output(print(ice), "30,000,000 curves, 3,030,000,000 points")
  expect_output(str(ice), "3,030,000,000 obs. of 5 variables")
  expect_identical(summary(ice)$points, 3.03e9)
  expect_error(as.data.frame(ice), "more than a data frame can hold")
  expect_false(is.data.frame(ice))
  expect_error(plot(ice), "more than a data frame can hold")
})

test_that("a binomial glm's compact curves give each class's probabilities", {
  D <- ice_data()
  D$z <- as.integer(D$y > 0.3)
  fit <- glm(z ~ a * b, data = D, family = binomial)
  X <- D[c("a", "b")]
  for (cl in c("0", "1")) {
    lin <- model_profile(fit, X, N = NULL, grid_points = 5, class = cl)
    expect_s3_class(.subset2(lin, "cp_profiles"), "mp_ice")
    cp <- lin$cp_profiles
    nd <- X[cp$`_ids_`, ]
    nd$a[cp$`_vname_` == "a"] <- cp$`_x_`[cp$`_vname_` == "a"]
    nd$b[cp$`_vname_` == "b"] <- cp$`_x_`[cp$`_vname_` == "b"]
    p1 <- unname(predict(fit, nd, type = "response"))
    expect_equal(cp$`_yhat_`, if (cl == "1") p1 else 1 - p1, tolerance = 1e-13)
  }
})

test_that("subgroups and weights keep one block per part, in the predict() path's order", {
  D <- ice_data()
  fit <- lm(y ~ a * b + f, data = D)
  X <- D[c("a", "b", "f")]
  w <- rep(1:3, length.out = nrow(X))
  lin <- model_profile(fit, X, variables = c("a", "b"), N = NULL, grid_points = 5, groups = "f", weights = w)
  ref <- model_profile(fit, X, variables = c("a", "b"), N = NULL, grid_points = 5, groups = "f", weights = w,
                       engine = "predict")
  expect_length(ice_blocks(lin$cp_profiles), 6L)
  expect_identical(lin$cp_profiles[1:4], ref$cp_profiles[1:4])
  expect_equal(lin$cp_profiles$`_yhat_`, ref$cp_profiles$`_yhat_`, tolerance = 1e-13)
  expect_equal(lin$agr_profiles, ref$agr_profiles, tolerance = 1e-13)
})

test_that("a black box keeps its curves as arrays, and a replaced frame is used as given", {
  D <- ice_data(120)
  X <- D[c("a", "b")]
  pf <- function(m, nd) sin(nd$a) * nd$b
  res <- model_profile(NULL, X, pf, N = NULL, grid_points = 4)
  ice <- .subset2(res, "cp_profiles")
  expect_true(is.array(ice_blocks(ice)[[1]]$values))
  cp <- res$cp_profiles
  expect_equal(cp$`_yhat_`, pf(NULL, transform(X[cp$`_ids_`, ],
                                               a = ifelse(cp$`_vname_` == "a", cp$`_x_`, a),
                                               b = ifelse(cp$`_vname_` == "b", cp$`_x_`, b))))
  # A user's frame in its place is what $cp_profiles and the plots read.
  res$cp_profiles <- cp[cp$`_vname_` == "a", ]
  expect_identical(res$cp_profiles, cp[cp$`_vname_` == "a", ])
  expect_s3_class(plot(res, geom = "profiles", variables = "a"), "ggplot")
})

test_that("ICE clusters label the compact curves by cluster", {
  D <- ice_data(150)
  fit <- lm(y ~ a * b, data = D)
  res <- model_profile(fit, D[c("a", "b")], N = NULL, grid_points = 5, k = 2)
  ice <- .subset2(res, "cp_profiles")
  expect_s3_class(ice, "mp_ice")
  cp <- res$cp_profiles
  cl <- res$clusters$cluster[match(cp$`_ids_`, res$clusters$row)]
  expect_identical(cp$`_label_`, paste0("lm_", cl))
  expect_setequal(unique(cp$`_label_`), res$labels)
})

test_that("ingredients' idioms on $cp_profiles: aggregate_profiles(), plot() and its layers (its help pages)", {
  skip_if_not_installed("ingredients")
  skip_if_not_installed("DALEX")
  ti <- DALEX::titanic_imputed
  fit <- glm(survived ~ gender + age + fare, data = ti, family = "binomial")
  X <- ti[c("gender", "age", "fare")]
  pd <- model_profile(fit, X, variables = c("age", "fare", "gender"), N = 100, seed = 1, grid_points = 21)
  cp <- pd$cp_profiles
  ex <- DALEX::explain(fit, data = X, y = ti$survived, verbose = FALSE, label = "glm")
  # The same table made by ingredients: the same rows and grids.
  theirs <- ingredients::ceteris_paribus(ex, new_observation = X[pd$rows, ], variable_splits = pd$grids)
  for (type in c("partial", "conditional", "accumulated")) {
    ours <- ingredients::aggregate_profiles(cp, variables = "age", type = type)
    ref <- ingredients::aggregate_profiles(theirs, variables = "age", type = type)
    expect_equal(ours$`_x_`, ref$`_x_`, info = type)
    expect_equal(ours$`_yhat_`, ref$`_yhat_`, tolerance = 1e-10, info = type)
  }
  # Partial: the package's own profile.
  agg <- ingredients::aggregate_profiles(cp, variables = "age", type = "partial")
  own <- pd$agr_profiles[pd$agr_profiles$`_vname_` == "age", ]
  expect_equal(agg$`_yhat_`, own$`_yhat_`, tolerance = 1e-12)
  # Subgroups of a column of the table, and a categorical variable.
  by_gender <- ingredients::aggregate_profiles(cp, variables = "age", groups = "gender")
  expect_setequal(unique(by_gender$`_label_`), c("glm_female", "glm_male"))
  cat_ <- ingredients::aggregate_profiles(cp, variables = "gender", variable_type = "categorical")
  expect_equal(cat_$`_yhat_`, pd$agr_profiles$`_yhat_`[pd$agr_profiles$`_vname_` == "gender"], tolerance = 1e-12)
  # The chart idioms of the help pages build.
  p <- plot(cp, variables = "age") +
    ingredients::show_observations(cp, variables = "age") +
    ingredients::show_rugs(cp, variables = "age", color = "red") +
    ingredients::show_aggregated_profiles(agg, size = 3)
  expect_s3_class(p, "ggplot")
  expect_silent(ggplot2::ggplot_build(p))
  q <- plot(cp) + ingredients::show_aggregated_profiles(pd$agr_profiles[pd$agr_profiles$`_vname_` != "gender", ])
  expect_equal(sort(ggplot2::layer_data(q, 2)$y),
               sort(pd$agr_profiles$`_yhat_`[pd$agr_profiles$`_vname_` != "gender"]), tolerance = 1e-12)
  # ingredients' plot of the table itself, as of its own.
  expect_s3_class(ingredients:::plot.ceteris_paribus_explainer(cp, variables = "age"), "ggplot")
  # ggplot() of the table with a user's aesthetics, dplyr and merge().
  g <- ggplot2::ggplot(cp, ggplot2::aes(`_x_`, `_yhat_`, group = `_ids_`)) + ggplot2::geom_line()
  expect_identical(nrow(ggplot2::layer_data(g)), nrow(cp))
  if (requireNamespace("dplyr", quietly = TRUE)) {
    f <- dplyr::filter(cp, `_vname_` == "age", `_ids_` == pd$rows[1])
    expect_identical(class(f), "data.frame")
    expect_equal(f$`_yhat_`, unname(predict(fit, transform(X[rep(pd$rows[1], 21), ], age = pd$grids$age),
                                            type = "response")), tolerance = 1e-12)
  }
  m <- merge(cp, data.frame(`_vname_` = "fare", weight = 2, check.names = FALSE))
  expect_identical(nrow(m), sum(cp$`_vname_` == "fare"))
})

test_that("columns made inside R's radix sort (order() of several lazy columns) are made without sorting", {
  D <- ice_data(50)
  fit <- lm(y ~ a * b + f, data = D)
  X <- D[c("a", "b", "f")]
  for (k in list(NULL, 2)) {
    res <- model_profile(fit, X, N = NULL, grid_points = 4, k = k)
    cp <- as.data.frame(res$cp_profiles)
    long <- as.data.frame(lapply(cp, function(col) col[seq_along(col)]))
    names(long) <- names(cp)
    # Each order() makes its columns inside the sort; the frame is fresh.
    expect_identical(order(res$cp_profiles$`_ids_`, res$cp_profiles$`_x_`), order(long$`_ids_`, long$`_x_`))
    res2 <- model_profile(fit, X, N = NULL, grid_points = 4, k = k)
    expect_identical(order(res2$cp_profiles$f, res2$cp_profiles$`_label_`, res2$cp_profiles$`_yhat_`),
                     order(long$f, long$`_label_`, long$`_yhat_`))
  }
})
