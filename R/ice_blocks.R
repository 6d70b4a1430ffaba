# The storage of mp_ice (the ICE curves a result keeps; see R/result_ice.R):
# blocks of curves, their columns and rows read on demand.

# The columns of the long frame, in order (and `_extrapolation_`, the
# verdicts of the points, after them when a block has them).
ice_columns <- c("_vname_", "_label_", "_ids_", "_x_", "_yhat_")
ice_long_columns <- function(blocks) {
  c(ice_columns, if (any(!vapply(blocks, function(b) is.null(b$outside), logical(1)))) "_extrapolation_")
}

# A block: the curves of variable `v` for output labels `labels`, of the
# rows `ids` (of the user's data), at grid `x` (character when the result's
# scales are mixed); `values` a G x m x outputs array or an mp_affine
# table; `suffix`: NULL, or per row a suffix of its label (the ICE-curve
# clusters of cluster_result()); `outside`: NULL, or G x m raw 0/1, the
# points outside the data's support (see ?extrapolation).
ice_block <- function(v, labels, ids, x, values, suffix = NULL, outside = NULL) {
  list(v = v, labels = labels, ids = ids, x = x, values = values, suffix = suffix, outside = outside)
}

# The blocks of an mp_ice, or of its store (R/result_ice.R).
ice_blocks <- function(x) if (is.environment(x)) x$blocks else attr(x, "ice", exact = TRUE)$blocks

# The curves of a block as a G x m x outputs array.
ice_block_array <- function(b) curves_array(b$values, length(b$x), length(b$ids), length(b$labels))

# Kept curves (an array or an mp_affine table of m rows over G grid
# points, C outputs) as a G x m x C array.
curves_array <- function(values, G, m, C) {
  if (!inherits(values, "mp_affine")) return(values)
  array(affine_values(values), c(G, m, C))
}

# Rows of the long frame of a block: G * m * C, label-major, then row, then
# grid point.
ice_block_rows <- function(b) as.double(length(b$x)) * length(b$ids) * length(b$labels)

# A block's verdicts (raw 0/1, 2 for a row left out of the measure's
# subsample; NULL without the measure: n of them) as integers 0/1/NA.
ice_verdicts <- function(outside, n = length(outside)) {
  if (is.null(outside)) return(rep(NA_integer_, n))
  v <- as.integer(outside)
  v[v > 1L] <- NA_integer_
  v
}

# Column `name` of a block's long frame, at its rows `r` (positions within
# the block, all when NULL), made from the compact curves.
ice_block_column <- function(b, name, r = NULL) {
  G <- length(b$x)
  m <- length(b$ids)
  C <- length(b$labels)
  if (is.null(r)) {
    switch(name,
      `_vname_` = rep(b$v, G * m * C),
      `_label_` = if (is.null(b$suffix)) rep(b$labels, each = G * m) else
        paste0(rep(b$labels, each = G * m), "_", rep(rep(b$suffix, each = G), C)),
      `_ids_` = rep(rep(b$ids, each = G), C),
      `_x_` = rep(b$x, m * C),
      `_yhat_` = if (inherits(b$values, "mp_affine")) as.vector(affine_values(b$values)) else as.vector(b$values),
      `_extrapolation_` = rep(ice_verdicts(b$outside, G * m), C)
    )
  } else {
    r0 <- r - 1
    g <- r0 %% G + 1
    i <- (r0 %/% G) %% m + 1
    c <- r0 %/% (G * m) + 1
    switch(name,
      `_vname_` = rep(b$v, length(r)),
      `_label_` = if (is.null(b$suffix)) b$labels[c] else paste0(b$labels[c], "_", b$suffix[i]),
      `_ids_` = b$ids[i],
      `_x_` = b$x[g],
      `_yhat_` = if (!length(r)) {
        numeric()
      } else if (inherits(b$values, "mp_affine")) {
        pos <- sort(unique(i))
        y <- affine_values(b$values, pos)
        y[cbind((match(i, pos) - 1) * G + g, c)]
      } else {
        b$values[r]
      },
      `_extrapolation_` = ice_verdicts(b$outside[(i - 1) * G + g], length(r))
    )
  }
}

# Column `name` of the long frame at its rows `rows` (all when NULL; an
# increasing or any order of positions, no NA), bound over the blocks as
# rbind() binds data frames (factor levels joined, classes kept).
ice_column <- function(x, name, rows = NULL) {
  blocks <- ice_blocks(x)
  if (is.null(rows)) return(bind_column(lapply(blocks, ice_block_column, name = name), name))
  # (No rows: the column's type. Made without split() or order(): a lazy
  # column is made inside R's own C code, e.g. order()'s radix sort, which
  # must not run again meanwhile.)
  if (!length(rows)) return(bind_column(lapply(blocks, ice_block_column, name = name, r = numeric()), name))
  ends <- cumsum(vapply(blocks, ice_block_rows, numeric(1)))
  starts <- c(0, ends)
  # Rows of one block are read together; the pieces are put back in the
  # order asked for.
  parts <- split(seq_along(rows), findInterval(rows - 1, ends) + 1L)
  col <- bind_column(lapply(names(parts), function(k) {
    ice_block_column(blocks[[as.integer(k)]], name, rows[parts[[k]]] - starts[as.integer(k)])
  }), name)
  at <- unlist(parts, use.names = FALSE)
  if (is.unsorted(at)) col <- col[order(at)]
  col
}

# Vectors bound as one column of data frames bound by rbind().
bind_column <- function(pieces, name) {
  if (length(pieces) == 1L) return(pieces[[1L]])
  # (Plain vectors of one class: c(), as rbind() would bind them, faster.)
  cls <- lapply(pieces, class)
  if (all(vapply(cls, identical, logical(1), cls[[1L]])) && !is.factor(pieces[[1L]]) &&
      cls[[1L]][1L] %in% c("numeric", "integer", "character", "logical", "Date")) {
    return(do.call(c, unname(pieces)))
  }
  frames <- lapply(pieces, function(p) {
    structure(list(p), names = name, class = "data.frame", row.names = .set_row_names(length(p)))
  })
  do.call(rbind, frames)[[1L]]
}

# Number of points (rows of the long frame).
ice_size <- function(x) sum(vapply(ice_blocks(x), ice_block_rows, numeric(1)))

# The long frame of the blocks `keep` (all by default), each restricted to
# its rows whose ids are in `ids` (all when NULL).
ice_long <- function(x, keep = seq_along(ice_blocks(x)), ids = NULL) {
  blocks <- ice_blocks(x)[keep]
  if (!length(blocks)) return(NULL)
  if (!is.null(ids)) blocks <- lapply(blocks, function(b) block_rows(b, which(b$ids %in% ids)))
  long_frame(new_mp_ice(blocks))
}

# Block b restricted to its curves at positions `pos`.
block_rows <- function(b, pos) {
  b$ids <- b$ids[pos]
  if (!is.null(b$suffix)) b$suffix <- b$suffix[pos]
  if (!is.null(b$outside)) b$outside <- b$outside[, pos, drop = FALSE]
  b$values <- if (inherits(b$values, "mp_affine")) {
    array(affine_values(b$values, pos), c(length(b$x), length(pos), length(b$labels)))
  } else {
    b$values[, pos, , drop = FALSE]
  }
  b
}

# The long frame (its columns `columns`, every row).
long_frame <- function(x, columns = ice_columns) {
  n <- ice_size(x)
  if (n > .Machine$integer.max) {
    cli::cli_abort(c(
      "The ICE curves have {format(n, big.mark = ',', scientific = FALSE)} points, more than a data frame can hold.",
      i = "Take a part of them first, e.g. {.code cp[cp$`_vname_` == \"x1\", ]}, or keep fewer background rows ({.arg N})."
    ), call = NULL)
  }
  cols <- lapply(stats::setNames(columns, columns), function(nm) ice_column(x, nm))
  structure(cols, class = "data.frame", row.names = .set_row_names(n))
}

# ---- Lazy columns of the mp_ice data frame (R/result_ice.R) ------------------

# The values of a lazy column (whole, or at its positions `indx`, NA past
# its end), without attributes: the R side of src/lazy_columns.cpp.
ice_lazy_values <- function(recipe) ice_lazy_subset(recipe, NULL)

ice_lazy_subset <- function(recipe, indx) {
  store <- recipe[[1L]]
  none <- ice_piece(store, recipe[[2L]], integer())
  ok <- !is.na(indx) & indx <= ice_size(store)
  if (all(ok)) return(bare_as(ice_piece(store, recipe[[2L]], indx), none))
  out <- none[rep(NA_integer_, length(indx))]
  out[ok] <- ice_piece(store, recipe[[2L]], indx[ok])
  bare_as(out, none)
}

# The values of x without attributes, of the type of `prototype`.
bare_as <- function(x, prototype) {
  attributes(x) <- NULL
  storage.mode(x) <- typeof(prototype)
  x
}

# Column `name` of the frame at its rows `rows` (all when NULL): a long
# column, or the wide column of a profiled variable (its grid value on its
# own curves, the row's own value on the others').
ice_piece <- function(store, name, rows = NULL) {
  if (name %in% c(ice_columns, "_extrapolation_")) return(ice_column(store, name, rows))
  own <- store$observed[[name]]
  grid_values <- function(x) {
    g <- store$grids[[name]]
    if (is.character(x) && !is.character(g)) g[match(x, as.character(g))] else x
  }
  if (is.null(rows)) {
    # Whole: block by block (label-major, then row, then grid point).
    pieces <- lapply(ice_blocks(store), function(b) {
      G <- length(b$x)
      if (b$v != name) return(rep(rep(own[match(b$ids, store$rows)], each = G), length(b$labels)))
      g <- own[rep(NA_integer_, G)]
      g[] <- grid_values(b$x)
      rep(g, length(b$ids) * length(b$labels))
    })
    return(bind_column(pieces, name))
  }
  out <- own[match(ice_column(store, "_ids_", rows), store$rows)]
  at <- which(ice_column(store, "_vname_", rows) == name)
  if (length(at)) out[at] <- grid_values(ice_column(store, "_x_", rows[at]))
  out
}

# ingredients' "observations": the background rows' values of the data's
# columns, `_yhat_` (each row's prediction, read off its ICE curve of the
# first variable at its own value: linearly interpolated between grid points
# of a numeric variable), `_label_` and `_ids_`; row names the rows.
ice_observations <- function(store) {
  obs <- store$observed
  if (is.null(obs) || !length(store$wide)) return(NULL)
  v1 <- intersect(vapply(ice_blocks(store), `[[`, "", "v"), store$wide)[1L]
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
