/* core/text_pieces.h — cutting a plain text already in memory into pieces of whole lines, for
 * readers that parse the pieces at once (parac-mpi's ranks, mpi/text_block.c; the threads of the
 * FIMI reader, fca/io_fimi.c). Each piece is then read with parac_line_reader_open_piece, numbered
 * from 1 + the newlines of the pieces before it.
 *
 * Piece p of P starts at the first line start at or after byte p*size/P (piece 0 at 0) and ends
 * where piece p + 1 starts (the last at size): consecutive runs of whole lines, some possibly empty. */
#ifndef PARAC_CORE_TEXT_PIECES_H
#define PARAC_CORE_TEXT_PIECES_H

#include <stdint.h>

/* Where piece `piece` of `pieces` starts (piece == pieces: size). */
uint64_t parac_text_piece_start(const unsigned char *bytes, uint64_t size, uint64_t pieces, uint64_t piece);
/* Newlines among size bytes. */
uint64_t parac_text_count_newlines(const unsigned char *bytes, uint64_t size);

#endif
