# model_profile()'s help page, continued: parallel and distributed prediction
# (a doc-only file, beside R/model_profile_doc.R).
#' @name model_profile
#' @rdname model_profile
#' @section Parallel and distributed prediction:
#' With a non-sequential [future::plan()] (multisession, multicore, cluster,
#' `future.callr`, `future.mirai`, `future.batchtools`), the stacks of rows
#' of the `predict()` path go to the workers as futures: the model, the
#' predict function, the distinct background rows the stacks need and the
#' profiled columns' values travel to a worker, which stacks and predicts
#' them; the results are combined and summed in chunk order. Where the
#' workers are R processes that run one future after another
#' (multisession, cluster), a model of 100 kB to 1 GiB travels only with a
#' call's first future to each worker, which keeps it for the call's next
#' futures (a worker that lacks it gets the future again, with it). The requests
#' of a call form one stream of chunks (the variables of `model_profile()`,
#' the pairs of `model_profile_2d()`, the subgroups of
#' `hidden_interactions()`, the three profiles of `compare_profiles()`), so
#' the workers go from one profile to the next without waiting. The chunks
#' are the same under every plan; a future carries a share of the stacked
#' rows of one or more chunks, cut where its rows end, and a stack cut so
#' is predicted in pieces whose predictions are put together in order: the
#' same predictions for any `predict()` that predicts each row on its own
#' (as models do), so the numbers are identical. Parallelism is used only
#' where it pays: a call starts in this process, timing the first 1/32 of
#' its rows, and turns to the workers only when what is left gives two
#' workers or more at least 4 round trips of a future each (the round trip
#' is learnt from the call's own futures; before the first is in, the last
#' call's under the same plan is assumed, or 50 ms for running workers); each
#' future then carries enough rows that its round trip is under 5% of its
#' work, where what is left allows, and the last futures share what is
#' left equally. A cheap call (a linear model, a few thousand rows) stays
#' in this process. The option `modelprofiles.future_overhead` sets
#' the round trip in seconds instead (`0` sends every stack of rows to the
#' workers). The native and linear engines run in this process (on
#' `threads`). Progress is reported per `predict()` call (also from
#' workers) through the progressr package, silently unless a handler is
#' enabled (`progressr::handlers(global = TRUE)` or
#' `progressr::with_progress()`).
#'
#' Interrupts: Ctrl-C stops a call at once and assigns no result. Futures
#' in flight are cancelled with [future::cancel()], which stops their
#' workers where the backend can interrupt them (multisession, multicore,
#' `future.callr`, `future.mirai`; a cluster plan only with
#' `plan(cluster, workers = ..., interrupts = TRUE)`, otherwise each worker
#' first finishes its future), started again when next needed. A
#' `predict()` that does not check for interrupts finishes its call first.
#' **ranger:** Ctrl-C in ranger's own `predict()` (`engine = "predict"`)
#' can crash or deadlock R, as plain `ranger::predict()` does; the native
#' engine (the default for ranger) stops cleanly between blocks. See
#' `vignette("large-data")`.
#'
NULL
