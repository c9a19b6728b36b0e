from .offsets import group_start_rows, padded_size, init_group_table
