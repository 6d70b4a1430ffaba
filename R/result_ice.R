# The ICE curves a result keeps (class c("mp_ice", "data.frame")),
# compactly: one block per profiled variable and part, holding the curves as
# a G x rows x outputs array, or for the linear engine as the rows'
# intercepts and slopes (an "mp_affine" table, 16 bytes a row whatever the
# grid). The blocks, the background rows' values and the grids are kept once,
# in a locked environment (the "store", attribute "ice"), never changed
# after it is made. The mp_ice is a data frame of DALEX's long columns
# (`_vname_`, `_label_`, `_ids_`, `_x_`, `_yhat_`) and ingredients' wide ones
# (a column per profiled variable), each a lazy column (src/lazy_columns.cpp)
# made from the store: a subset reads only its rows; a column read whole is
# made once and kept with it; saveRDS() writes only the store. Attribute
# "observations" is ingredients' table of the background rows. The package's
# own code reads the blocks (ice_blocks(), ice_block_array(), ice_long()).

# The constructor: an mp_ice of the blocks `blocks` (ice_block()), with the
# background rows' values `observed` of the profiled variables (rows `rows`
# of the data) and the profiles' `grids`, from which the wide columns and
# the observations are made.
new_mp_ice <- function(blocks, observed = NULL, rows = NULL, grids = NULL) {
  store <- new.env(parent = emptyenv())
  store$blocks <- blocks
  vars <- unique(vapply(blocks, `[[`, "", "v"))
  store$wide <- if (!is.null(observed) && any(vars %in% names(observed))) names(observed) else character()
  store$observed <- if (length(store$wide)) observed
  store$rows <- rows
  store$grids <- grids[store$wide]
  lockEnvironment(store, bindings = TRUE)
  n <- ice_size(store)
  if (n > .Machine$integer.max) return(structure(list(), ice = store, class = "mp_ice"))
  cols <- c(ice_columns, store$wide)
  out <- lapply(stats::setNames(cols, cols), function(nm) {
    lazy_column(list(store, nm), n, ice_piece(store, nm, integer()))
  })
  structure(out, class = c("mp_ice", "data.frame"), row.names = .set_row_names(n), ice = store,
            observations = ice_observations(store))
}

# The values of a lazy column (whole, or at its positions `indx`, NA past
# its end), without attributes: the R side of src/lazy_columns.cpp.
ice_lazy_values <- function(recipe) {
  out <- ice_piece(recipe[[1L]], recipe[[2L]])
  bare_as(out, ice_piece(recipe[[1L]], recipe[[2L]], integer()))
}

# The values of x without attributes, of the type of `prototype`.
bare_as <- function(x, prototype) {
  attributes(x) <- NULL
  storage.mode(x) <- typeof(prototype)
  x
}

ice_lazy_subset <- function(recipe, indx) {
  store <- recipe[[1L]]
  ok <- !is.na(indx) & indx <= ice_size(store)
  if (all(ok)) {
    out <- ice_piece(store, recipe[[2L]], indx)
  } else {
    out <- ice_piece(store, recipe[[2L]], integer())[rep(NA_integer_, length(indx))]
    out[ok] <- ice_piece(store, recipe[[2L]], indx[ok])
  }
  bare_as(out, ice_piece(store, recipe[[2L]], integer()))
}

# Column `name` of the frame at its rows `rows` (all when NULL): a long
# column, or the wide column of a profiled variable (its grid value on its
# own curves, the row's own value on the others').
ice_piece <- function(store, name, rows = NULL) {
  if (name %in% ice_columns) return(ice_column(store, name, rows))
  own <- store$observed[[name]]
  grid_values <- function(x) {
    g <- store$grids[[name]]
    if (is.character(x) && !is.character(g)) g[match(x, as.character(g))] else x
  }
  if (is.null(rows)) {
    # Whole: block by block (label-major, then row, then grid point).
    pieces <- lapply(ice_blocks(store), function(b) {
      G <- length(b$x)
      C <- length(b$labels)
      if (b$v == name) {
        g <- own[rep(NA_integer_, G)]
        g[] <- grid_values(b$x)
        return(rep(g, length(b$ids) * C))
      }
      rep(rep(own[match(b$ids, store$rows)], each = G), C)
    })
    return(bind_column(pieces, name))
  }
  ids <- ice_column(store, "_ids_", rows)
  out <- own[match(ids, store$rows)]
  vn <- ice_column(store, "_vname_", rows)
  at <- which(vn == name)
  if (length(at)) {
    out[at] <- grid_values(ice_column(store, "_x_", rows[at]))
  }
  out
}

# ingredients' "observations": the background rows' values of the profiled
# variables, `_yhat_` (each row's prediction, read off its ICE curve of the
# first variable at its own value: linearly interpolated between grid points
# of a numeric variable), `_label_` and `_ids_`; row names the rows.
ice_observations <- function(store) {
  obs <- store$observed
  if (is.null(obs) || !length(store$wide)) return(NULL)
  v1 <- intersect(store$wide, vapply(ice_blocks(store), `[[`, "", "v"))[1L]
  yhat <- rep(NA_real_, nrow(obs))
  label <- rep(NA_character_, nrow(obs))
  for (b in ice_blocks(store)) {
    if (b$v != v1) next
    at <- match(b$ids, store$rows)
    todo <- which(is.na(yhat[at]))
    if (!length(todo)) next
    # (In chunks of rows: a linear block's curves are made only for them.)
    for (part in split(todo, (seq_along(todo) - 1L) %/% ice_chunk_rows)) {
      Y <- matrix(ice_block_array(block_rows(b, part))[, , 1L], length(b$x))
      yhat[at[part]] <- curve_at(Y, b$x, obs[[v1]][at[part]])
    }
    label[at[todo]] <- if (is.null(b$suffix)) b$labels[1L] else paste0(b$labels[1L], "_", b$suffix[todo])
  }
  obs$`_yhat_` <- yhat
  obs$`_label_` <- label
  obs$`_ids_` <- store$rows
  rownames(obs) <- as.character(store$rows)
  obs
}

# Curve k of Y (G x m, at grid x) at own[k]: interpolated linearly between
# grid points for numbers (the ends beyond the grid), the level's value for
# categories.
curve_at <- function(Y, x, own) {
  m <- ncol(Y)
  if (!is.numeric(own) || is.factor(own)) {
    return(Y[cbind(match(as.character(own), as.character(x)), seq_len(m))])
  }
  x <- as.numeric(if (is.character(x)) x else unclass(x))
  # (A user's grid may be in any order.)
  o <- order(x)
  x <- x[o]
  Y <- Y[o, , drop = FALSE]
  own <- as.numeric(unclass(own))
  G <- length(x)
  if (G == 1L) return(Y[1L, ])
  k <- findInterval(own, x, all.inside = TRUE)
  t <- pmin(pmax((own - x[k]) / (x[k + 1L] - x[k]), 0), 1)
  (1 - t) * Y[cbind(k, seq_len(m))] + t * Y[cbind(k + 1L, seq_len(m))]
}

# An mp_ice as a plain data frame of the same (lazy) columns, optionally
# with its "observations".
ice_plain <- function(x, observations = FALSE) {
  if (!is.data.frame(x)) return(long_frame(x))
  obs <- attr(x, "observations")
  out <- structure(unclass(x)[names(x)], class = "data.frame", row.names = .set_row_names(nrow(x)))
  if (observations) attr(out, "observations") <- obs
  out
}

# ---- Methods ---------------------------------------------------------------

#' ICE curves, kept compactly
#'
#' The ICE (ceteris-paribus) curves of a [model_profile()] result,
#' `x$cp_profiles`, are a data frame (of class `c("mp_ice", "data.frame")`)
#' that keeps the curves as they were computed (a grid x rows array per
#' variable, or for models linear in the variable each row's intercept and
#' slope), a few bytes a curve point, and makes its columns when they are
#' read. It has a row per curve point, the rows ordered by variable (and
#' subgroup), label, row, then grid point, and columns
#' * DALEX's long columns `_vname_` (the variable), `_label_`, `_ids_` (the
#'   row of the data), `_x_` (the grid point) and `_yhat_` (the prediction
#'   there);
#' * ingredients' wide columns: one per profiled variable, holding the grid
#'   value on that variable's own curves and the row's own value on the
#'   others' (as `ingredients::ceteris_paribus()` and `DALEX`'s
#'   `cp_profiles` have them);
#'
#' and attribute `"observations"`, ingredients' table of the background
#' rows (their values, `_yhat_` read off each row's curve of the first
#' variable at its own value, `_label_`, `_ids_`).
#'
#' It is a data frame (`is.data.frame()` is `TRUE`): every data-frame idiom
#' works on it, among them `cp[cp$`_vname_` == "wt", ]`, `subset()`,
#' `with()`, `head()`, `merge()`, `aggregate()`, `rbind()`, `split()`,
#' `ggplot(cp, aes(`_x_`, `_yhat_`, group = `_ids_`))`,
#' `dplyr::filter()`, `lm(`_yhat_` ~ `_x_`, data = cp)`, and ingredients'
#' `aggregate_profiles(cp)` and `show_observations(cp)`.
#'
#' What is made, and when: the columns are lazy. Selecting rows (`[`,
#' `head()`, `subset()`'s selection) makes only those rows; a column read
#' whole (a comparison, `unique()`, `mean()`) is made once and then kept
#' with the curves, so that it is not made again. `print()`, `str()`,
#' `summary()`, `plot()`, `dim()`, `names()` and `saveRDS()` (which writes
#' the compact curves, read or not) make nothing. Assigning into it
#' (`cp$col <- value`, `cp[i, j] <- value`, `names(cp) <- value`) and
#' `as.data.frame()` give a plain data frame.
#'
#' `plot(cp)` draws the curves, one panel per variable, as ingredients'
#' plot of ceteris-paribus profiles does; `+ ingredients::show_aggregated_profiles(x$agr_profiles)`
#' adds the profile. DALEX's and ingredients' own plot methods take
#' [as_dalex()]`(x)`.
#'
#' @param x,object,data,target An `mp_ice` object, `x$cp_profiles` of a
#'   [model_profile()] result.
#' @param i,j Rows and columns, as for a data frame.
#' @param drop As for a data frame.
#' @param current What to compare with.
#' @param value A value to assign.
#' @param row.names,optional Ignored; for compatibility with the generic.
#' @param ... Passed on to the data frame's method, or ignored.
#' @returns `as.data.frame()` a plain data frame of the same columns;
#'   `[` and `rbind()` plain data frames; `summary()` a data frame with a
#'   row per variable, part and label: the number of curves and grid
#'   points; `print()` and `str()` `x` invisibly; `plot()` a ggplot.
#' @examples
#' fit <- lm(mpg ~ wt * hp, data = mtcars)
#' pd <- model_profile(fit, mtcars[c("wt", "hp")])
#' cp <- pd$cp_profiles
#' cp
#' is.data.frame(cp)
#' dim(cp)
#' unique(cp$`_vname_`)
#' head(cp[cp$`_vname_` == "wt", ])
#' subset(cp, `_ids_` == 18, select = c(`_vname_`, `_x_`, `_yhat_`)) # row 18, the Fiat 128
#' plot(cp)
#' @name mp_ice
NULL

#' @rdname mp_ice
#' @export
as.data.frame.mp_ice <- function(x, row.names = NULL, optional = FALSE, ...) ice_plain(x)

#' @rdname mp_ice
#' @export
`[.mp_ice` <- function(x, i, j, drop) {
  x <- ice_plain(x)
  NextMethod()
}

#' @rdname mp_ice
#' @export
dim.mp_ice <- function(x) {
  N <- ice_size(x)
  c(if (N <= .Machine$integer.max) as.integer(N) else N, length(ice_columns) + length(attr(x, "ice")$wide))
}

#' @rdname mp_ice
#' @export
as.list.mp_ice <- function(x, ...) as.list(ice_plain(x))

#' @rdname mp_ice
#' @export
`$<-.mp_ice` <- function(x, name, value) {
  x <- ice_plain(x)
  x[[name]] <- value
  x
}

#' @rdname mp_ice
#' @export
`[[<-.mp_ice` <- function(x, i, j, value) {
  x <- ice_plain(x)
  NextMethod()
}

#' @rdname mp_ice
#' @export
`[<-.mp_ice` <- function(x, i, j, value) {
  x <- ice_plain(x)
  NextMethod()
}

#' @rdname mp_ice
#' @export
`names<-.mp_ice` <- function(x, value) {
  x <- ice_plain(x)
  names(x) <- value
  x
}

#' @rdname mp_ice
#' @export
`dimnames<-.mp_ice` <- function(x, value) {
  x <- ice_plain(x)
  dimnames(x) <- value
  x
}

#' @rdname mp_ice
#' @param deparse.level Passed to [rbind()].
#' @export
rbind.mp_ice <- function(..., deparse.level = 1) {
  args <- lapply(list(...), function(a) if (inherits(a, "mp_ice")) ice_plain(a, observations = TRUE) else a)
  do.call(rbind, c(args, list(deparse.level = deparse.level)))
}

#' @rdname mp_ice
#' @param variables `NULL` (every variable of `variable_type`) or names of
#'   profiled variables to draw.
#' @param variable_type `"numerical"` (the default, as ingredients': the
#'   numeric variables, or the categorical ones when there are none) or
#'   `"categorical"`.
#' @param max_curves Maximum number of rows whose curves are drawn (an
#'   evenly spaced selection).
#' @param observations Mark each row's own value and prediction with a
#'   point? By default, when at most 10 rows' curves are drawn.
#' @param color,alpha,size The curves' colour (one colour, or `"_label_"`
#'   to colour by label), opacity and width.
#' @param title,subtitle The chart's title and subtitle (`NULL`: the model's
#'   labels).
#' @param facet_ncol Number of columns of panels (`NULL`: ggplot2's choice).
#' @param categorical_type How categorical variables are drawn, as in
#'   ingredients: `"profiles"` (points, unjoined), `"lines"` (joined) or
#'   `"bars"`.
#' @export
plot.mp_ice <- function(x, ..., variables = NULL, variable_type = "numerical", max_curves = 100,
                        observations = NULL, color = "#46bac2", alpha = NULL, size = 0.5,
                        title = "Ceteris-paribus profiles", subtitle = NULL, facet_ncol = NULL,
                        categorical_type = c("profiles", "lines", "bars")) {
  call <- rlang::current_env()
  n_more <- ...length()
  if (n_more) {
    cli::cli_abort(c(
      "{.fn plot} of ICE curves draws one set of curves; {n_more} more {?was/were} given.",
      i = "Bind them first, {.code plot(rbind(cp1, cp2))}, or draw the results with {.code plot(result1, result2, geom = \"profiles\")}."
    ), call = call)
  }
  categorical_type <- arg_one(categorical_type, c("profiles", "lines", "bars"), "categorical_type", call)
  if (!is.null(facet_ncol)) facet_ncol <- check_whole(facet_ncol, "facet_ncol", 1, call)
  if (!is.data.frame(x)) cli::cli_abort("These ICE curves are more than a data frame can hold; plot the result of {.fn model_profile} instead.", call = call)
  variable_type <- check_variable_type(variable_type, call)
  max_curves <- check_whole(max_curves, "max_curves", 1, call)
  if (!is.null(observations)) check_flag(observations, "observations", call)
  store <- attr(x, "ice")
  blocks <- ice_blocks(store)
  vars <- unique(vapply(blocks, `[[`, "", "v"))
  if (!is.null(variables)) {
    bad <- setdiff(variables, vars)
    if (!is.character(variables) || length(bad)) {
      cli::cli_abort(c("{.arg variables} must name profiled variables{if (length(bad)) ', not {.val {bad}}'}.",
                       i = "The curves are of {.val {vars}}."), call = call)
    }
    vars <- intersect(vars, variables)
  }
  kinds <- vapply(vars, function(v) column_kind(store$grids[[v]] %||% store$observed[[v]]), "")
  want <- if (variable_type == "numerical") "numeric" else "categorical"
  if (!any(kinds == want)) {
    if (!is.null(variables) || variable_type == "categorical") {
      cli::cli_abort("No {variable_type} variable to draw; use {.code variable_type = \"{if (want == 'numeric') 'categorical' else 'numerical'}\"}.", call = call)
    }
    want <- "categorical"
  }
  vars <- vars[kinds == want]
  keep <- which(vapply(blocks, function(b) b$v %in% vars, logical(1)))
  ids <- unique(unlist(lapply(blocks[keep], `[[`, "ids")))
  if (length(ids) > max_curves) ids <- ids[unique(round(seq(1, length(ids), length.out = max_curves)))]
  d <- ice_long(store, keep, ids)
  numeric_x <- want == "numeric"
  if (numeric_x && is.character(d$`_x_`)) d$`_x_` <- as.numeric(d$`_x_`)
  # (Panels in the variables' order.)
  d$`_vname_` <- factor(d$`_vname_`, levels = vars)
  labels <- unique(d$`_label_`)
  by_label <- identical(color, "_label_") || (identical(color, "#46bac2") && length(labels) > 1L)
  alpha <- alpha %||% if (length(ids) > 20) 0.3 else 1
  # (Grouped as ingredients groups, so that its layers, show_observations()
  # and show_aggregated_profiles(), add to the chart.)
  p <- ggplot2::ggplot(d, ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]],
                                       group = paste(.data[["_ids_"]], .data[["_label_"]])))
  # Categories unjoined (no order between levels), as DALEX draws them;
  # ingredients' "lines" joins them, "bars" draws bars.
  joined <- numeric_x || categorical_type == "lines"
  geom <- if (joined) ggplot2::geom_line else ggplot2::geom_point
  width <- if (joined) list(linewidth = size) else list(size = 3 * size)
  if (!numeric_x && categorical_type == "bars") {
    # (Bars are filled.)
    p <- p + if (by_label) ggplot2::geom_col(ggplot2::aes(fill = .data[["_label_"]]), position = "dodge", alpha = alpha) else
      ggplot2::geom_col(fill = color, position = "dodge", alpha = alpha)
    geom <- NULL
  }
  if (!is.null(geom)) {
    p <- p + if (by_label) {
      do.call(geom, c(list(ggplot2::aes(colour = .data[["_label_"]]), alpha = alpha), width))
    } else {
      do.call(geom, c(list(colour = color, alpha = alpha), width))
    }
  }
  obs <- attr(x, "observations")
  if (is.null(observations)) observations <- length(ids) <= 10L
  if (observations && !is.null(obs)) {
    o <- obs[match(as.character(ids), rownames(obs)), , drop = FALSE]
    pts <- do.call(rbind, lapply(vars, function(v) {
      data.frame(`_vname_` = v, `_x_` = if (numeric_x) as.numeric(o[[v]]) else as.character(o[[v]]),
                 `_yhat_` = o$`_yhat_`, `_ids_` = rownames(o), `_label_` = o$`_label_`, check.names = FALSE,
                 stringsAsFactors = FALSE)
    }))
    pts$`_vname_` <- factor(pts$`_vname_`, levels = vars)
    p <- p + ggplot2::geom_point(data = pts, colour = "#371ea3", size = 2)
  }
  p <- p + ggplot2::facet_wrap(ggplot2::vars(.data[["_vname_"]]), scales = "free_x", ncol = facet_ncol) +
    ggplot2::labs(x = NULL, y = "prediction", colour = NULL, title = title,
                  subtitle = subtitle %||% paste0("created for the ", paste(labels, collapse = ", "), " model")) +
    ggplot2::theme_bw()
  p$mp_ice <- list(vars = vars, numeric = numeric_x)
  class(p) <- c("mp_ice_plot", class(p))
  p
}

# Layers added to plot() of the curves (ingredients' show_aggregated_profiles()
# of a result's agr_profiles, whose `_x_` is text when its variables' scales
# differ) are drawn on its panels: their rows of other variables are left
# out and their `_x_` read as numbers on numeric panels.
#' @exportS3Method ggplot2::ggplot_build
ggplot_build.mp_ice_plot <- function(plot) {
  info <- plot$mp_ice
  # (A layer is an environment, shared with the plot: its data is given
  # back as it was once the plot is built.)
  kept <- list()
  on.exit(for (i in names(kept)) plot$layers[[as.integer(i)]]$data <- kept[[i]])
  for (i in seq_along(plot$layers)) {
    d <- plot$layers[[i]]$data
    if (!is.data.frame(d) || !"_vname_" %in% names(d)) next
    kept[[as.character(i)]] <- d
    d <- d[as.character(d$`_vname_`) %in% info$vars, , drop = FALSE]
    if (info$numeric && is.character(d$`_x_`)) d$`_x_` <- as.numeric(d$`_x_`)
    d$`_vname_` <- factor(as.character(d$`_vname_`), levels = info$vars)
    plot$layers[[i]]$data <- d
  }
  plot$mp_ice <- NULL
  class(plot) <- setdiff(class(plot), "mp_ice_plot")
  ggplot2::ggplot_build(plot)
}

# dplyr's verbs give plain data frames (its default keeps the class and
# attributes of the curves they came from).
#' @exportS3Method dplyr::dplyr_reconstruct
dplyr_reconstruct.mp_ice <- function(data, template) {
  attr(data, "ice") <- NULL
  attr(data, "observations") <- NULL
  class(data) <- "data.frame"
  data
}

# ggplot(cp) draws the plain frame.
#' @exportS3Method ggplot2::fortify
fortify.mp_ice <- function(model, data, ...) ice_plain(model)

# What the long frame would take, in bytes: per row a pointer for each
# character column, 4 bytes for an integer or factor column, 8 else.
ice_long_bytes <- function(x) {
  b <- ice_blocks(x)[[1L]]
  width <- function(v) if (is.integer(v) || is.factor(v) || is.logical(v)) 4 else 8
  ice_size(x) * (8 + 8 + width(b$ids) + width(b$x) + 8)
}

format_bytes <- function(bytes) format(structure(bytes, class = "object_size"), units = "auto", standard = "SI")

#' @rdname mp_ice
#' @export
print.mp_ice <- function(x, ...) {
  blocks <- ice_blocks(x)
  vars <- unique(vapply(blocks, `[[`, "", "v"))
  curves <- sum(vapply(blocks, function(b) as.double(length(b$ids)) * length(b$labels), numeric(1)))
  cli::cat_line("<mp_ice> ICE curves of ", length(vars), " variable", if (length(vars) != 1L) "s",
                " (", paste(vars, collapse = ", "), "): ",
                format(curves, big.mark = ",", scientific = FALSE), " curves, ",
                format(ice_size(x), big.mark = ",", scientific = FALSE), " points")
  cli::cat_line("  kept compactly (", format_bytes(ice_compact_bytes(x)), "); a data frame with DALEX's columns ",
                paste(ice_columns, collapse = ", "), if (length(attr(x, "ice")$wide)) " and ingredients' ",
                paste(attr(x, "ice")$wide, collapse = ", "), " (about ", format_bytes(ice_long_bytes(x)),
                " made whole)")
  cli::cat_line("  its columns are made when read: `[`, subset(), head() make only the rows asked for")
  invisible(x)
}

#' @rdname mp_ice
#' @export
str.mp_ice <- function(object, ...) {
  cols <- c(ice_columns, attr(object, "ice")$wide)
  cat(" 'mp_ice': ICE curves read as ", format(ice_size(object), big.mark = ",", scientific = FALSE),
      " obs. of ", length(cols), " variables (", paste(cols, collapse = ", "),
      "), kept compactly in ", length(ice_blocks(object)), " block",
      if (length(ice_blocks(object)) != 1L) "s", "\n", sep = "")
  invisible()
}

#' @rdname mp_ice
#' @export
summary.mp_ice <- function(object, ...) {
  rows <- lapply(ice_blocks(object), function(b) {
    data.frame(variable = b$v, label = b$labels, curves = length(b$ids), grid_points = length(b$x),
               points = as.double(length(b$ids)) * length(b$x), stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

#' @rdname mp_ice
#' @method all.equal mp_ice
#' @export
all.equal.mp_ice <- function(target, current, ...) {
  if (inherits(current, "mp_ice")) current <- ice_plain(current)
  all.equal(ice_plain(target), current, ...)
}

# testthat's expect_equal() and expect_identical() compare the plain frames.
#' @exportS3Method waldo::compare_proxy
compare_proxy.mp_ice <- function(x, path) {
  list(object = ice_plain(x), path = paste0("as.data.frame(", path, ")"))
}

# The bytes the compact curves take.
ice_compact_bytes <- function(x) utils::object.size(ice_blocks(x))

# ---- What the package reads -------------------------------------------------

# The ICE curves a result holds: an mp_ice, a data frame (given by the
# user), or NULL; without making the long frame. (An mp_ice is a data frame
# too: test inherits(, "mp_ice") first.)
ice_of <- function(x) .subset2(x, "cp_profiles")

# The ICE curves of a result as a long frame, only of the variables `vars`
# and at most `max_curves` rows (evenly spaced among them, in the order they
# first appear).
ice_frame_of <- function(x, vars = NULL, max_curves = Inf) {
  ice <- ice_of(x)
  if (is.null(ice)) return(NULL)
  if (!inherits(ice, "mp_ice")) {
    cp <- if (is.null(vars)) ice else ice[ice$`_vname_` %in% vars, , drop = FALSE]
    ids <- unique(cp$`_ids_`)
    if (length(ids) > max_curves) {
      ids <- ids[unique(round(seq(1, length(ids), length.out = max_curves)))]
      cp <- cp[cp$`_ids_` %in% ids, , drop = FALSE]
    }
    return(cp)
  }
  blocks <- ice_blocks(ice)
  keep <- which(vapply(blocks, function(b) is.null(vars) || b$v %in% vars, logical(1)))
  ids <- unique(unlist(lapply(blocks[keep], `[[`, "ids")))
  if (length(ids) > max_curves) {
    ids <- ids[unique(round(seq(1, length(ids), length.out = max_curves)))]
  } else {
    ids <- NULL
  }
  ice_long(ice, keep, ids)
}

# The curves of variable v and output label `label` as a G x m matrix, and
# their row ids.
ice_curves_of <- function(x, v, label) {
  ice <- ice_of(x)
  if (!inherits(ice, "mp_ice")) {
    c <- ice[ice$`_vname_` == v & ice$`_label_` == label, , drop = FALSE]
    ids <- unique(c$`_ids_`)
    return(list(Y = matrix(c$`_yhat_`, ncol = length(ids)), ids = ids))
  }
  for (b in ice_blocks(ice)) {
    if (b$v != v) next
    c <- match(label, b$labels)
    if (is.na(c)) next
    return(list(Y = matrix(ice_block_array(b)[, , c], length(b$x)), ids = b$ids))
  }
  NULL
}

# The output labels of a result's ICE curves.
ice_labels <- function(x) {
  ice <- ice_of(x)
  if (is.null(ice)) return(NULL)
  if (!inherits(ice, "mp_ice")) return(unique(ice$`_label_`))
  unique(unlist(lapply(ice_blocks(ice), function(b) {
    if (is.null(b$suffix)) b$labels else outer(b$labels, unique(b$suffix), paste, sep = "_")
  })))
}
