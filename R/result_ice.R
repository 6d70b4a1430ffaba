# The ICE curves a result keeps, class c("mp_ice", "data.frame") (?mp_ice):
# the blocks (R/ice_blocks.R; the linear engine's as the rows' intercepts
# and slopes, an "mp_affine" table of 16 bytes a row whatever the grid), the
# rows' values and the grids, kept once in a locked environment (the
# "store", attribute "ice") never changed after it is made, from which the
# lazy columns (src/lazy_columns.cpp) are made; saveRDS() writes only the
# store. The package's own code reads the blocks (ice_blocks(), ice_long()).

# The constructor: an mp_ice of the blocks `blocks` (ice_block()), with the
# background rows' values `observed` of the profiled variables (rows `rows`
# of the data) and the profiles' `grids`, from which the wide columns and
# the observations are made.
new_mp_ice <- function(blocks, observed = NULL, rows = NULL, grids = NULL) {
  store <- new.env(parent = emptyenv())
  store$blocks <- blocks
  vars <- unique(vapply(blocks, `[[`, "", "v"))
  store$wide <- if (any(vars %in% names(observed))) setdiff(names(observed), c(ice_columns, "_extrapolation_")) else character()
  store$observed <- if (length(store$wide)) observed
  store$rows <- rows
  store$grids <- grids[intersect(names(grids), store$wide)]
  lockEnvironment(store, bindings = TRUE)
  n <- ice_size(store)
  if (n > .Machine$integer.max) return(structure(list(), ice = store, class = "mp_ice"))
  cols <- c(ice_long_columns(blocks), store$wide)
  out <- lapply(stats::setNames(cols, cols), function(nm) {
    lazy_column(list(store, nm), n, ice_piece(store, nm, integer()))
  })
  structure(out, class = c("mp_ice", "data.frame"), row.names = .set_row_names(n), ice = store,
            observations = ice_observations(store))
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
#' * for partial dependence with the extrapolation measure on,
#'   `_extrapolation_`: 1 when the point lies outside the data's support, 0
#'   when inside (see [extrapolation]; `NA` for a row left out of the
#'   measure's subsample above 10,000 background rows). Its weighted mean
#'   over a variable's curves at a grid point is the profile's
#'   `_extrapolation_` there;
#' * ingredients' wide columns: one per column of the data, holding the
#'   row's own value, but on a profiled variable's own curves its grid value
#'   (as `ingredients::ceteris_paribus()` and `DALEX`'s `cp_profiles` have
#'   them), so that `aggregate_profiles(cp, groups = "column")` and
#'   `ggplot(cp, aes(colour = column))` work;
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
#' `aggregate_profiles(cp)` (with `groups`) and `show_observations(cp)`.
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
#' @param name A column's name.
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
  c(if (N <= .Machine$integer.max) as.integer(N) else N, length(ice_long_columns(ice_blocks(x))) + length(attr(x, "ice")$wide))
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
`[<-.mp_ice` <- function(x, i, j, value) {
  x <- ice_plain(x)
  NextMethod()
}

#' @rdname mp_ice
#' @export
`[[<-.mp_ice` <- `[<-.mp_ice`

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
                format_count(curves), " curves, ", format_count(ice_size(x)), " points")
  cli::cat_line("  kept compactly (", format_bytes(ice_compact_bytes(x)), "); a data frame with DALEX's columns ",
                paste(ice_long_columns(blocks), collapse = ", "), if (length(attr(x, "ice")$wide)) " and the data's ",
                format_names(attr(x, "ice")$wide), " (about ", format_bytes(ice_long_bytes(x)),
                " made whole)")
  cli::cat_line("  its columns are made when read: `[`, subset(), head() make only the rows asked for")
  invisible(x)
}

# Names for print(), at most 8 (then how many more).
format_names <- function(x, n = 8L) {
  paste0(paste(utils::head(x, n), collapse = ", "), if (length(x) > n) paste0(" and ", length(x) - n, " more"))
}

#' @rdname mp_ice
#' @export
str.mp_ice <- function(object, ...) {
  cols <- c(ice_long_columns(ice_blocks(object)), attr(object, "ice")$wide)
  cat(" 'mp_ice': ICE curves read as ", format_count(ice_size(object)),
      " obs. of ", length(cols), " variables (", paste(cols, collapse = ", "),
      "), kept compactly in ", length(ice_blocks(object)), " block",
      if (length(ice_blocks(object)) != 1L) "s", "\n", sep = "")
  invisible()
}

#' @rdname mp_ice
#' @export
summary.mp_ice <- function(object, ...) {
  bind_rows(lapply(ice_blocks(object), function(b) {
    data.frame(variable = b$v, label = b$labels, curves = length(b$ids), grid_points = length(b$x),
               points = as.double(length(b$ids)) * length(b$x), stringsAsFactors = FALSE)
  }))
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
  thin <- function(ids) { # (NULL: all of them)
    if (length(ids) > max_curves) ids[unique(round(seq(1, length(ids), length.out = max_curves)))]
  }
  if (!inherits(ice, "mp_ice")) {
    cp <- if (is.null(vars)) ice else ice[ice$`_vname_` %in% vars, , drop = FALSE]
    ids <- thin(unique(cp$`_ids_`))
    return(if (is.null(ids)) cp else cp[cp$`_ids_` %in% ids, , drop = FALSE])
  }
  keep <- which(vapply(ice_blocks(ice), function(b) is.null(vars) || b$v %in% vars, logical(1)))
  ice_long(ice, keep, thin(unique(unlist(lapply(ice_blocks(ice)[keep], `[[`, "ids")))))
}

# The values of the background rows `rows` of the variables `vars`, or of
# every column of `data` when the ICE curves are kept (`all`), as DALEX's
# carry them.
ice_row_values <- function(data, vars, rows, all) {
  as.data.frame(lapply(data[if (all) names(data) else vars], at_rows, rows), stringsAsFactors = FALSE, optional = TRUE)
}

# The values of the rows of a result's ICE curves: every column of the data
# when the curves are kept, else the profiled variables'.
ice_observed <- function(x) {
  ice <- ice_of(x)
  (if (inherits(ice, "mp_ice")) attr(ice, "ice")$observed) %||% x$observed
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
