# The ICE curves a result keeps (class "mp_ice"), compactly: one block per
# profiled variable and part, holding the curves as a G x rows x outputs
# array, or for the linear engine as the rows' intercepts and slopes
# (an "mp_affine" table, 16 bytes a row whatever the grid). DALEX's long
# `cp_profiles` data frame (five columns, a row per curve point) is made
# from them only when it is asked for: `x$cp_profiles` and
# `x[["cp_profiles"]]` of an mp_profile, or as.data.frame(x, what =
# "cp_profiles"), make it once and keep it. The package's own code reads
# the blocks (ice_of(), ice_block_array(), ice_long()).

# A block: the curves of variable `v` for output labels `labels`, of the
# rows `ids` (of the user's data), at grid `x` (character when the result's
# scales are mixed); `values` a G x m x outputs array or an mp_affine
# table; `suffix`: NULL, or per row a suffix of its label (the ICE-curve
# clusters of cluster_result()).
ice_block <- function(v, labels, ids, x, values, suffix = NULL) {
  list(v = v, labels = labels, ids = ids, x = x, values = values, suffix = suffix)
}

new_mp_ice <- function(blocks) {
  structure(list(blocks = blocks, cache = new.env(parent = emptyenv())), class = "mp_ice")
}

# The curves of a block as a G x m x outputs array.
ice_block_array <- function(b) curves_array(b$values, length(b$x), length(b$ids), length(b$labels))

# Kept curves (an array or an mp_affine table of m rows over G grid
# points, C outputs) as a G x m x C array.
curves_array <- function(values, G, m, C) {
  if (!inherits(values, "mp_affine")) return(values)
  array(affine_values(values), c(G, m, C))
}

# A block (its rows at positions `pos`, or all) as DALEX's long frame.
ice_block_frame <- function(b, pos = NULL) {
  G <- length(b$x)
  ids <- if (is.null(pos)) b$ids else b$ids[pos]
  vals <- if (inherits(b$values, "mp_affine")) {
    matrix(affine_values(b$values, pos), ncol = length(b$labels))
  } else if (is.null(pos)) {
    matrix(b$values, ncol = length(b$labels))
  } else {
    matrix(b$values[, pos, , drop = FALSE], ncol = length(b$labels))
  }
  suffix <- if (!is.null(b$suffix)) rep(if (is.null(pos)) b$suffix else b$suffix[pos], each = G)
  bind_rows(lapply(seq_along(b$labels), function(c) {
    data.frame(
      `_vname_` = b$v,
      `_label_` = if (is.null(suffix)) b$labels[c] else paste0(b$labels[c], "_", suffix),
      `_ids_` = rep(ids, each = G),
      `_x_` = rep(b$x, times = length(ids)),
      `_yhat_` = vals[, c],
      check.names = FALSE, stringsAsFactors = FALSE
    )
  }))
}

#' @export
as.data.frame.mp_ice <- function(x, row.names = NULL, optional = FALSE, ...) {
  if (is.null(x$cache$long)) x$cache$long <- ice_long(x)
  x$cache$long
}

#' @export
print.mp_ice <- function(x, ...) {
  cli::cat_line("<mp_ice> ICE curves of ", length(unique(vapply(x$blocks, `[[`, "", "v"))),
                " variable", if (length(x$blocks) != 1L) "s", ": ",
                format(ice_size(x), big.mark = ",", scientific = FALSE), " points (as.data.frame() gives the long form)")
  invisible(x)
}

# The long frame of the blocks `keep` (all by default), each restricted to
# its rows whose ids are in `ids` (all when NULL).
ice_long <- function(x, keep = seq_along(x$blocks), ids = NULL) {
  frames <- lapply(x$blocks[keep], function(b) {
    ice_block_frame(b, if (!is.null(ids)) which(b$ids %in% ids))
  })
  if (!length(frames)) return(NULL)
  bind_rows(frames)
}

# Number of points (rows of the long frame).
ice_size <- function(x) {
  sum(vapply(x$blocks, function(b) as.double(length(b$x)) * length(b$ids) * length(b$labels), numeric(1)))
}

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
  keep <- which(vapply(ice$blocks, function(b) is.null(vars) || b$v %in% vars, logical(1)))
  ids <- unique(unlist(lapply(ice$blocks[keep], `[[`, "ids")))
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
  for (b in ice$blocks) {
    if (b$v != v) next
    c <- match(label, b$labels)
    if (is.na(c)) next
    return(list(Y = matrix(ice_block_array(b)[, , c], length(b$x)), ids = b$ids))
  }
  NULL
}

# DALEX's fields: `$cp_profiles` and `[["cp_profiles"]]` of a result give
# the long data frame.

#' @export
`$.mp_profile` <- function(x, name) {
  out <- .subset2(x, name, exact = FALSE)
  if (inherits(out, "mp_ice")) as.data.frame(out) else out
}

#' @export
`[[.mp_profile` <- function(x, i, ...) {
  out <- .subset2(x, i, ...)
  if (inherits(out, "mp_ice")) as.data.frame(out) else out
}

# The output labels of a result's ICE curves.
ice_labels <- function(x) {
  ice <- ice_of(x)
  if (is.null(ice)) return(NULL)
  if (is.data.frame(ice)) return(unique(ice$`_label_`))
  unique(unlist(lapply(ice$blocks, function(b) {
    if (is.null(b$suffix)) b$labels else outer(b$labels, unique(b$suffix), paste, sep = "_")
  })))
}
