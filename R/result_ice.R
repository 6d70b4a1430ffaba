# The ICE curves a result keeps (class "mp_ice"), compactly: one block per
# profiled variable and part, holding the curves as a G x rows x outputs
# array, or for the linear engine as the rows' intercepts and slopes
# (an "mp_affine" table, 16 bytes a row whatever the grid). An mp_ice is a
# value: nothing is stored in it after it is made. It reads like DALEX's
# long `cp_profiles` data frame (five columns, a row per curve point):
# `$`, `[[`, `[`, subset(), with(), head(), tail(), dim(), names() and
# as.data.frame() make only the columns and rows asked for, each time.
# The package's own code reads the blocks (ice_blocks(), ice_block_array(),
# ice_long()).

# The constructor: an mp_ice of the blocks `blocks` (ice_block()).
new_mp_ice <- function(blocks) {
  structure(list(blocks = blocks), class = "mp_ice")
}

# ---- Methods: read like DALEX's long frame, made on demand ----------------

#' ICE curves, kept compactly
#'
#' The ICE (ceteris-paribus) curves of a [model_profile()] result,
#' `x$cp_profiles`, are an object of class `mp_ice`: the curves as kept when
#' they were computed (a grid x rows array per variable, or for models
#' linear in the variable each row's intercept and slope), a few bytes a
#' curve point. It reads like DALEX's long `cp_profiles` data frame, with
#' a row per curve point and columns `_vname_` (the variable), `_label_`,
#' `_ids_` (the row of the data), `_x_` (the grid point) and `_yhat_` (the
#' prediction there); the rows ordered by variable (and subgroup), label,
#' row, then grid point.
#'
#' These methods make only the columns and rows asked for, each time, and
#' never store them in the object (reading the curves leaves the result
#' unchanged, byte for byte):
#' * `as.data.frame(cp)` the whole long data frame;
#' * `cp$name` and `cp[["name"]]` one column, e.g. `unique(cp$`_vname_`)`;
#' * `cp[i, j]`, `cp[j]` rows and columns, as a data frame's `[` gives them
#'   (`cp[cp$`_vname_` == "wt", ]`);
#' * `subset(cp, subset, select)`, `with(cp, expr)`, `head()`, `tail()`;
#' * `nrow()`, `ncol()`, `dim()`, `names()`, `length()` (columns) and
#'   `as.list()`;
#' * `rbind()` (with an `mp_ice` first: `rbind(df, cp)` is an error, use
#'   `rbind(df, as.data.frame(cp))`), `split()` and `unique()` (of rows),
#'   and `ggplot(cp)`, as of the long data frame;
#' * assigning into it (`cp$col <- value`, `cp[i, j] <- value`,
#'   `names(cp) <- value`) gives the long data frame, modified;
#' * `print()`, `str()` and `summary()` describe the curves without making
#'   the long frame; `all.equal()` (and testthat's comparisons) compare the
#'   long frames.
#'
#' Functions that convert their argument with `as.data.frame()`
#' (`merge()`, `aggregate()`, `data.frame()`) work as on the long frame.
#' For anything else (dplyr verbs, data.table), convert with
#' `as.data.frame()` first: `is.data.frame(cp)` is `FALSE`.
#'
#' @param x,object,data,target An `mp_ice` object, `x$cp_profiles` of a
#'   [model_profile()] result.
#' @param name,i,j Columns (by name or number) and rows (by number or a
#'   logical condition), as for a data frame.
#' @param drop As for a data frame: `TRUE` gives a vector for one column.
#' @param subset,select,expr As for [subset()] and [with()] of a data frame:
#'   evaluated with the columns as variables.
#' @param n Number of rows.
#' @param current What to compare with.
#' @param value A value to assign.
#' @param row.names,optional Ignored; for compatibility with the generic.
#' @param ... Passed on to the data frame's method, or ignored.
#' @returns `as.data.frame()`, `[`, `subset()`, `head()`, `tail()`,
#'   `rbind()` and `unique()` data frames (`split()` a list of them); `$` and `[[` a column (a vector); `dim()` the numbers of rows
#'   and columns; `names()` the column names; `summary()` a data frame with
#'   a row per variable, part and label: the number of curves and grid
#'   points; `print()` and `str()` `x` invisibly.
#' @examples
#' fit <- lm(mpg ~ wt * hp, data = mtcars)
#' pd <- model_profile(fit, mtcars[c("wt", "hp")])
#' cp <- pd$cp_profiles
#' cp
#' dim(cp)
#' unique(cp$`_vname_`)
#' head(cp[cp$`_vname_` == "wt", ])
#' subset(cp, `_ids_` == 18, select = c(`_vname_`, `_x_`, `_yhat_`)) # row 18, the Fiat 128
#' str(as.data.frame(cp))
#' @name mp_ice
NULL

#' @rdname mp_ice
#' @export
as.data.frame.mp_ice <- function(x, row.names = NULL, optional = FALSE, ...) long_frame(x)

#' @rdname mp_ice
#' @export
`$.mp_ice` <- function(x, name) {
  if (!name %in% ice_columns) return(NULL)
  ice_column(x, name)
}

#' @rdname mp_ice
#' @export
`[[.mp_ice` <- function(x, i, ...) {
  if (length(i) != 1L) cli::cli_abort("Give one column of {.cls mp_ice} to {.code [[}.", call = NULL)
  name <- if (is.character(i)) i else ice_columns[i]
  if (is.na(name) || !name %in% ice_columns) {
    if (is.character(i)) return(NULL)
    cli::cli_abort("Column {.val {i}} does not exist: an {.cls mp_ice} has {length(ice_columns)}.", call = NULL)
  }
  ice_column(x, name)
}

#' @rdname mp_ice
#' @export
`[.mp_ice` <- function(x, i, j, drop) {
  n_args <- nargs() - !missing(drop)
  if (n_args < 3L) {
    # x[] and x[j]: columns, every row.
    columns <- if (missing(i)) ice_columns else ice_select_columns(i)
    return(long_frame(x, columns))
  }
  columns <- if (missing(j)) ice_columns else ice_select_columns(j)
  if (missing(drop)) drop <- if (missing(i)) TRUE else length(columns) == 1L
  if (missing(i)) {
    out <- long_frame(x, columns)
  } else {
    sel <- ice_select_rows(ice_size(x), i)
    ok <- !is.na(sel$idx)
    pos <- cumsum(ok)
    pos[!ok] <- NA
    cols <- lapply(stats::setNames(columns, columns), function(nm) {
      col <- ice_column(x, nm, sel$idx[ok])
      if (all(ok)) col else col[pos]
    })
    out <- structure(cols, class = "data.frame", row.names = sel$row.names)
  }
  if (drop && length(columns) == 1L) out[[1L]] else out
}

#' @rdname mp_ice
#' @export
subset.mp_ice <- function(x, subset, select, drop = FALSE, ...) {
  r <- if (missing(subset)) {
    TRUE
  } else {
    e <- eval(substitute(subset), ice_mask(x, parent.frame()))
    if (!is.logical(e)) cli::cli_abort("{.arg subset} must be logical.", call = NULL)
    e & !is.na(e)
  }
  vars <- if (missing(select)) {
    TRUE
  } else {
    nl <- as.list(seq_along(ice_columns))
    names(nl) <- ice_columns
    eval(substitute(select), nl, parent.frame())
  }
  x[r, vars, drop = drop]
}

#' @rdname mp_ice
#' @export
with.mp_ice <- function(data, expr, ...) eval(substitute(expr), ice_mask(data, parent.frame()))

#' @rdname mp_ice
#' @export
head.mp_ice <- function(x, n = 6L, ...) {
  N <- ice_size(x)
  x[utils::head(seq_len(N), n), , drop = FALSE]
}

#' @rdname mp_ice
#' @export
tail.mp_ice <- function(x, n = 6L, ...) {
  N <- ice_size(x)
  x[utils::tail(seq_len(N), n), , drop = FALSE]
}

#' @rdname mp_ice
#' @export
dim.mp_ice <- function(x) {
  N <- ice_size(x)
  c(if (N <= .Machine$integer.max) as.integer(N) else N, length(ice_columns))
}

#' @rdname mp_ice
#' @export
dimnames.mp_ice <- function(x) list(NULL, ice_columns)

#' @rdname mp_ice
#' @export
names.mp_ice <- function(x) ice_columns

#' @rdname mp_ice
#' @export
length.mp_ice <- function(x) length(ice_columns)

#' @rdname mp_ice
#' @export
as.list.mp_ice <- function(x, ...) as.list(long_frame(x))

#' @rdname mp_ice
#' @export
`$<-.mp_ice` <- function(x, name, value) {
  x <- long_frame(x)
  x[[name]] <- value
  x
}

#' @rdname mp_ice
#' @export
`[[<-.mp_ice` <- function(x, i, j, value) {
  x <- long_frame(x)
  if (nargs() < 4L) {
    x[[i]] <- value
  } else {
    x[[i, j]] <- value
  }
  x
}

#' @rdname mp_ice
#' @export
`[<-.mp_ice` <- function(x, i, j, value) {
  x <- long_frame(x)
  if (nargs() < 4L) {
    x[i] <- value
  } else {
    x[i, j] <- value
  }
  x
}

#' @rdname mp_ice
#' @export
`names<-.mp_ice` <- function(x, value) {
  x <- long_frame(x)
  names(x) <- value
  x
}

#' @rdname mp_ice
#' @export
`dimnames<-.mp_ice` <- function(x, value) {
  x <- long_frame(x)
  dimnames(x) <- value
  x
}

#' @rdname mp_ice
#' @param deparse.level Passed to [rbind()].
#' @export
rbind.mp_ice <- function(..., deparse.level = 1) {
  args <- lapply(list(...), function(a) if (inherits(a, "mp_ice")) long_frame(a) else a)
  do.call(rbind, c(args, list(deparse.level = deparse.level)))
}

#' @rdname mp_ice
#' @param f As for [split()] of a data frame.
#' @export
split.mp_ice <- function(x, f, drop = FALSE, ...) split(long_frame(x), f, drop = drop, ...)

#' @rdname mp_ice
#' @param incomparables As for [unique()] of a data frame.
#' @export
unique.mp_ice <- function(x, incomparables = FALSE, ...) unique(long_frame(x), incomparables = incomparables, ...)

# ggplot(cp) draws the long frame.
#' @exportS3Method ggplot2::fortify
fortify.mp_ice <- function(model, data, ...) long_frame(model)

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
  cli::cat_line("  kept compactly (", format_bytes(utils::object.size(x)), "); read like DALEX's long frame with columns ",
                paste(ice_columns, collapse = ", "), " (about ", format_bytes(ice_long_bytes(x)),
                " as a data frame)")
  cli::cat_line("  as.data.frame(), `$`, `[`, subset(), head() make the rows asked for")
  invisible(x)
}

#' @rdname mp_ice
#' @export
str.mp_ice <- function(object, ...) {
  cat(" 'mp_ice': ICE curves read as ", format(ice_size(object), big.mark = ",", scientific = FALSE),
      " obs. of ", length(ice_columns), " variables (", paste(ice_columns, collapse = ", "),
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
  if (inherits(current, "mp_ice")) current <- long_frame(current)
  all.equal(long_frame(target), current, ...)
}

# testthat's expect_equal() and expect_identical() compare the long frames.
#' @exportS3Method waldo::compare_proxy
compare_proxy.mp_ice <- function(x, path) {
  list(object = long_frame(x), path = paste0("as.data.frame(", path, ")"))
}

# ---- What the package reads -------------------------------------------------

# The ICE curves a result holds: an mp_ice, a data frame (given by the
# user), or NULL; without making the long frame.
ice_of <- function(x) .subset2(x, "cp_profiles")

# The ICE curves of a result as a long frame, only of the variables `vars`
# and at most `max_curves` rows (evenly spaced among them, in the order they
# first appear).
ice_frame_of <- function(x, vars = NULL, max_curves = Inf) {
  ice <- ice_of(x)
  if (is.null(ice)) return(NULL)
  if (is.data.frame(ice)) {
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
  if (is.data.frame(ice)) {
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
  if (is.data.frame(ice)) return(unique(ice$`_label_`))
  unique(unlist(lapply(ice_blocks(ice), function(b) {
    if (is.null(b$suffix)) b$labels else outer(b$labels, unique(b$suffix), paste, sep = "_")
  })))
}
