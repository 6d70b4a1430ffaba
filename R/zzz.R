# Attaching: which of DALEX and modelprofiles owns model_profile(), said
# when the second of the two is attached (DALEX's model_profile() stops on
# a model and data, this package's call, with "requires an object created
# with explain()").

.onAttach <- function(libname, pkgname) {
  if ("package:DALEX" %in% search()) {
    packageStartupMessage(mask_message("modelprofiles"))
  }
  # DALEX attached later masks model_profile(): said then (once a session).
  if (!isTRUE(attach_state$hooked)) {
    setHook(packageEvent("DALEX", "attach"), function(...) {
      if ("package:modelprofiles" %in% search()) packageStartupMessage(mask_message("DALEX"))
    })
    attach_state$hooked <- TRUE
  }
  invisible()
}

attach_state <- new.env(parent = emptyenv())

# Which package's model_profile() a bare call reaches, and how to reach the
# other one. `last`: the package attached last.
mask_message <- function(last) {
  if (last == "DALEX") {
    paste0(
      "DALEX's model_profile() masks modelprofiles' (DALEX was attached last): it takes an explainer only.\n",
      "For a model and data call modelprofiles::model_profile(fit, data), or attach modelprofiles after DALEX."
    )
  } else {
    paste0(
      "modelprofiles' model_profile() masks DALEX's: it takes DALEX's call on an explainer, and a model with data.\n",
      "DALEX's own is DALEX::model_profile()."
    )
  }
}
