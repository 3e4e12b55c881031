# Embeds every .wgsl file under src/ into the binary at build time (never hand-written C++ strings).
# The generated source defines wgrt::shaders::embedded_wgsl(), a table of {relative path, text}.
function(wgrt_embed_wgsl out_var base_dir)
  set(out "${CMAKE_BINARY_DIR}/generated/wgsl_registry.cpp")
  string(REPLACE ";" "|" files "${ARGN}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DBASE=${base_dir} -DOUT=${out} "-DFILES=${files}"
            -P "${CMAKE_SOURCE_DIR}/cmake/EmbedWgslScript.cmake"
    DEPENDS ${ARGN} "${CMAKE_SOURCE_DIR}/cmake/EmbedWgslScript.cmake"
    COMMENT "Embedding WGSL shaders"
    VERBATIM)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
