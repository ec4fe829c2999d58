# steprdu_embed(<target> DIR <dir> EXT <ext> HEADER <header> NAMESPACE <ns> FUNCTION <fn> [KEEP_EXT]):
# compiles the text of every <dir>/*.<ext> into <target> (cmake/EmbedFiles.cmake), so the binary needs no
# source tree. The glob re-runs at build time, so a new file is picked up.
set(STEPRDU_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/EmbedFiles.cmake)
function(steprdu_embed target)
  cmake_parse_arguments(E "KEEP_EXT" "DIR;EXT;HEADER;NAMESPACE;FUNCTION" "" ${ARGN})
  file(GLOB inputs CONFIGURE_DEPENDS ${E_DIR}/*.${E_EXT})
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${E_FUNCTION}.cpp)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DDIR=${E_DIR} -DEXT=${E_EXT} -DOUTPUT=${output} -DHEADER=${E_HEADER}
            -DNAMESPACE=${E_NAMESPACE} -DFUNCTION=${E_FUNCTION}
            -DKEEP_EXT=${E_KEEP_EXT} -P ${STEPRDU_EMBED_SCRIPT}
    DEPENDS ${inputs} ${STEPRDU_EMBED_SCRIPT}
    COMMENT "Embedding ${E_DIR}/*.${E_EXT}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()
